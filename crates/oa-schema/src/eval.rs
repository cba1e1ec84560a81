//! The evaluator: walks compiled nodes over an instance, either answering yes/no or collecting every violation.
//!
//! Paths are built lazily: each step pushes a `Frame` on the call stack, linked to its parent, and only a recorded
//! violation walks the chain to build its instance location and keyword path (a run's later violations only the
//! part of it not shared with the last one's: see `paths`). The same chain is the dynamic scope
//! that `$dynamicRef` searches. Recursion is bounded by [`MAX_DEPTH`].

use crate::evaluated::Evaluated;
use crate::node::{Body, CompiledSchema, Node, NodeId, ResourceId};
use crate::violation::{Violation, ViolationKind, ViolationText};
use oa_pointer::Location;
use oa_pointer::Segment;
use serde_json::Value;
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

mod at;
mod detail;
mod paths;

pub(crate) use at::{Reached, Way};
pub(crate) use detail::{Detail, Extra, push_count, push_usize};
pub(crate) use paths::STAMPED;

/// The deepest chain of nested schema evaluations allowed; deeper instances or `$ref` chains fail with a
/// depth violation instead of overflowing the stack.
pub(crate) const MAX_DEPTH: u32 = 512;

/// How many nested subtrees, each found invalid by the yes/no evaluator, may each ask it about their parts before
/// the collecting walk stops asking (see `descend`): bounds the questions to this many per part of the instance.
const PRECHECK_NESTING: u32 = 2;

/// The fewest items or members for which the collecting walk asks the yes/no evaluator first.
const PRECHECK_MIN_LEN: usize = 5;

/// Reference hops a run makes before memoizing them (once a union has fallen back): below this, hashing costs
/// more than re-evaluating; above it, a union fanning out into the same children would grow exponentially.
pub(crate) const MEMO_AFTER_HOPS: u32 = 4096;

/// Reference hops a run makes before memoizing them without a union that fell back: the same node reaches the same
/// value twice through `allOf`, `not`, `items` beside `contains`, ..., and a schema recursing through two of them per
/// level of the instance is exponential in its depth unless something remembers. Late, so that long runs over large
/// instances (about two hops per value) hash nothing until they have made this many.
const MEMO_AFTER_HOPS_UNGATED: u32 = 1 << 20;

/// One step into the instance.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'v> {
    /// An object member.
    Key(&'v str),
    /// An array item.
    Index(usize),
}

/// One schema evaluation in progress; parents form the dynamic scope and the lazy paths.
#[derive(Debug)]
pub(crate) struct Frame<'f, 'v> {
    parent: Option<&'f Frame<'f, 'v>>,
    /// The instance step taken to reach this frame's instance, if any.
    step: Option<Step<'v>>,
    /// The keyword path segment taken to reach this frame's schema (`/properties/a`, `/$ref`).
    schema_step: &'f str,
    /// The resource of this frame's node.
    pub(crate) resource: ResourceId,
    depth: u32,
    /// How many violations the run had recorded when this frame was made (`usize::MAX` for a detached frame):
    /// with its address, what tells the kept paths' frames apart (see `paths`).
    born: usize,
}

impl Frame<'static, 'static> {
    /// A frame with no parent, at `depth`: for evaluations whose paths are never reported (the yes/no evaluator
    /// hands subtrees to a non-collecting run through one).
    pub(crate) fn detached(resource: ResourceId, depth: u32) -> Self {
        Self {
            parent: None,
            step: None,
            schema_step: "",
            resource,
            depth,
            born: usize::MAX,
        }
    }
}

impl<'f, 'v> Frame<'f, 'v> {
    /// The frames from this one outward.
    pub(crate) fn ancestry(&self) -> impl Iterator<Item = &Frame<'f, 'v>> {
        std::iter::successors(Some(self), |frame| frame.parent)
    }

    fn instance_location(&self) -> Location {
        let (location_bytes, _) = self.path_lengths();
        let mut location = Location::with_capacity(location_bytes);
        self.write_paths(&mut location, None);
        location
    }

    fn keyword_path(&self) -> String {
        let (_, keyword_path_bytes) = self.path_lengths();
        let mut location = Location::root();
        let mut keyword_path = String::with_capacity(keyword_path_bytes);
        self.write_paths(&mut location, Some(&mut keyword_path));
        keyword_path
    }

    /// The lengths of the instance location (estimated: escapes and long indices may add to it) and of the keyword
    /// path, in one walk up the chain.
    fn path_lengths(&self) -> (usize, usize) {
        let mut location_bytes = 0;
        let mut keyword_path_bytes = 0;
        for frame in self.ancestry() {
            location_bytes += match frame.step {
                Some(Step::Key(key)) => key.len() + 1,
                Some(Step::Index(_)) => 8,
                None => 0,
            };
            keyword_path_bytes += frame.schema_step.len();
        }
        (location_bytes, keyword_path_bytes)
    }

    /// Appends the instance steps, and (when asked) the keyword path segments, outermost first. Recursion as deep as the chain, which [`MAX_DEPTH`] bounds (and which the evaluation that
    /// built it already went through).
    fn write_paths(&self, location: &mut Location, mut keyword_path: Option<&mut String>) {
        if let Some(parent) = self.parent {
            parent.write_paths(location, keyword_path.as_deref_mut());
        }
        if let Some(step) = self.step {
            location.push(match step {
                Step::Key(key) => Segment::Key(key),
                Step::Index(idx) => Segment::Index(idx),
            });
        }
        if let Some(keyword_path) = keyword_path {
            keyword_path.push_str(self.schema_step);
        }
    }
}

/// The most violations of unresolved references reached while probing that a run keeps aside for its report: a
/// union probed over every item of a large array reaches the same reference once per item; the report needs them
/// only to name the references and where, and its collecting walk names those it reaches itself.
const UNRESOLVED_ASIDE_MAX: usize = 4096;

/// The report's first capacity (a small report is built without growing: an allocation of 1 KiB costs what one of
/// 512 bytes does, where growing to it moves the report).
const VIOLATIONS_AT_FIRST: usize = 16;

/// The message buffer's first capacity (most messages are shorter).
const MESSAGE_BUFFER_BYTES: usize = 128;

/// A message buffer grown beyond this (a long `enum` or `pattern` message) is freed rather than kept.
const MESSAGE_BUFFER_MAX_BYTES: usize = 1024;

/// A validation run over one instance.
#[derive(Debug)]
pub(crate) struct Evaluator<'s> {
    pub(crate) schema: &'s CompiledSchema,
    /// Collect every violation (`validate`) rather than stop at the first failure (`is_valid`).
    pub(crate) collect: bool,
    pub(crate) violations: Vec<Violation>,
    /// Outcomes of `$ref` targets per (node, instance address, collecting), once a union has had to try more than
    /// one member. A node is reached by two paths only through references, so memoizing reference hops keeps
    /// unions whose members recurse into the same children polynomial instead of exponential. In collecting mode a
    /// repeated hop adds nothing: its violations are already recorded, and the report deduplicates by location.
    memo: HashMap<(NodeId, usize, bool), bool, BuildHasherDefault<MemoHasher>>,
    /// Set by the first union that falls back to a second member; until then nothing is hashed or allocated.
    pub(crate) memo_enabled: bool,
    /// Non-zero while evaluating values that are not part of the instance (property names), whose addresses
    /// are temporary and must not be memoized.
    pub(crate) memo_suspended: u32,
    /// Reference hops so far; memoization starts only after [`MEMO_AFTER_HOPS`], so ordinary validations never
    /// pay for hashing.
    ref_hops: u32,
    /// The opt-in discriminator-aware view of failed unions (see `ReportOptions::discriminators`).
    pub(crate) discriminators: bool,
    /// Annotations of the nodes that validated, when an output format asks for them.
    pub(crate) annotations: Option<Vec<Annotation>>,
    /// The buffer violation messages are written into before they are copied into their violation (see
    /// [`message_buffer`](Self::message_buffer)): one allocation serves every message of the run.
    spare_message: String,
    /// How many subtrees around the current step the yes/no evaluator found invalid before they were walked.
    failed_prechecks: u32,
    /// How many of this run's questions to the yes/no evaluator were answered yes, and no.
    prechecks_held: u32,
    prechecks_failed: u32,
    /// The same for scalar items, counted apart: a scalar's question is cheap, and a failing scalar (often the very
    /// one that failed the instance) must not stop the questions about arrays and objects.
    scalar_prechecks_held: u32,
    scalar_prechecks_failed: u32,
    /// Whether this run writes a report (`collect` as created; probes turn `collect` off for a while).
    reporting: bool,
    /// Whether the depth limit was reached anywhere: the run then fails, whatever the branch that reached it.
    pub(crate) too_deep: bool,
    /// The first depth-limit violation, when it was reached while nothing was being recorded.
    first_too_deep: Option<Violation>,
    /// Whether a reference that resolves to nothing was reached anywhere: the run then fails, whatever the branch
    /// (its outcome is no verdict).
    pub(crate) unresolved: bool,
    /// The violations of the unresolved references reached while nothing was being recorded (in a union member,
    /// `not`, `if`): the report names them all the same.
    unresolved_reached: Vec<Violation>,
    /// The last violation's paths, which the next one starts from (from a run's second violation on): behind one
    /// pointer, so that a run without a second violation makes and frees nothing for them.
    paths: Option<Box<paths::Paths>>,
    /// Every violation's paths built from its frame chain, as a run's first violation's are: the reference the kept
    /// paths are checked against.
    #[cfg(test)]
    pub(crate) paths_from_scratch: bool,
}

/// One annotation: a meta-data, format or content keyword's value at an instance location.
#[derive(Debug, Clone)]
pub(crate) struct Annotation {
    pub(crate) instance_location: Location,
    pub(crate) keyword_path: String,
    pub(crate) absolute: String,
    pub(crate) value: Value,
}

impl<'s> Evaluator<'s> {
    /// A new run.
    pub(crate) fn new(schema: &'s CompiledSchema, collect: bool) -> Self {
        Self {
            schema,
            collect,
            violations: Vec::new(),
            memo: HashMap::default(),
            memo_enabled: false,
            memo_suspended: 0,
            annotations: None,
            spare_message: String::new(),
            reporting: collect,
            failed_prechecks: 0,
            prechecks_held: 0,
            prechecks_failed: 0,
            scalar_prechecks_held: 0,
            scalar_prechecks_failed: 0,
            too_deep: false,
            first_too_deep: None,
            unresolved: false,
            unresolved_reached: Vec::new(),
            discriminators: false,
            ref_hops: 0,
            paths: None,
            #[cfg(test)]
            paths_from_scratch: false,
        }
    }

    /// Makes the report's first allocation now, at [`VIOLATIONS_AT_FIRST`], for a run known to record a violation
    /// (an allocation of the right size costs less than the first growth of an empty list).
    #[inline]
    pub(crate) fn expect_violations(&mut self) {
        if self.violations.capacity() == 0 {
            self.allocate_report();
        }
    }

    /// The report's first allocation (once a run, out of line).
    #[cold]
    #[inline(never)]
    fn allocate_report(&mut self) {
        self.violations = Vec::with_capacity(VIOLATIONS_AT_FIRST);
    }

    /// A violation's message from its parts, in the reused buffer (see [`message_buffer`](Self::message_buffer)).
    pub(crate) fn message_of(&mut self, parts: &[&str]) -> String {
        let mut message = self.message_buffer();
        for part in parts {
            message.push_str(part);
        }
        message
    }

    /// An empty string to write a violation's message into; [`fail`](Self::fail) copies the message into the
    /// violation and hands the buffer back, so messages cost no allocation of their own. A run leaves the
    /// buffer to the next run on its thread (see `SPARE_MESSAGE`).
    pub(crate) fn message_buffer(&mut self) -> String {
        let mut buffer = std::mem::take(&mut self.spare_message);
        if buffer.capacity() == 0 {
            buffer = SPARE_MESSAGE.try_with(Cell::take).unwrap_or_default();
        }
        buffer.clear();
        if buffer.capacity() == 0 {
            buffer.reserve(MESSAGE_BUFFER_BYTES);
        }
        buffer
    }

    /// Follows a reference: as [`descend`](Self::descend), memoized once memoization is on.
    pub(crate) fn follow<'v>(
        &mut self,
        parent: &Frame<'_, 'v>,
        id: NodeId,
        instance: &'v Value,
        schema_step: &str,
        want: Option<&mut Evaluated<'v>>,
    ) -> bool {
        self.ref_hops = self.ref_hops.saturating_add(1);
        let memoizable = ((self.memo_enabled && self.ref_hops > MEMO_AFTER_HOPS)
            || self.ref_hops > MEMO_AFTER_HOPS_UNGATED)
            && self.annotations.is_none()
            && want.is_none()
            && self.memo_suspended == 0
            && !self.schema.dynamic_scope_matters;
        if !memoizable {
            return self.descend(parent, id, instance, None, schema_step, want);
        }
        let key = (id, std::ptr::from_ref(instance) as usize, self.collect);
        if let Some(known) = self.memo.get(&key) {
            return *known;
        }
        let valid = self.descend(parent, id, instance, None, schema_step, None);
        self.memo.insert(key, valid);
        valid
    }

    /// Evaluates the root node.
    pub(crate) fn run(&mut self, instance: &Value) -> bool {
        let schema = self.schema;
        let root = schema.root;
        let frame = Frame {
            parent: None,
            step: None,
            schema_step: "",
            resource: schema.nodes[root as usize].resource,
            depth: 0,
            born: self.violations.len(),
        };
        let valid = self.node(root, instance, &frame, None) && !self.too_deep && !self.unresolved;
        if self.reporting && !self.unresolved_reached.is_empty() {
            // Reached where nothing was recorded; the report lists each once (it drops repeats).
            self.violations.append(&mut self.unresolved_reached);
        }
        if self.too_deep
            && self.reporting
            && !self
                .violations
                .iter()
                .any(|violation| violation.keyword().is_none())
            && let Some(violation) = self.first_too_deep.take()
        {
            // The limit was reached where nothing was being recorded (inside a union member, `not`, `if`): the
            // report still names it.
            self.violations.push(violation);
        }
        valid
    }

    /// Evaluates `id` over `instance`, reached from `parent` by an instance step and a keyword path segment.
    pub(crate) fn descend<'v>(
        &mut self,
        parent: &Frame<'_, 'v>,
        id: NodeId,
        instance: &'v Value,
        step: Option<Step<'v>>,
        schema_step: &str,
        want: Option<&mut Evaluated<'v>>,
    ) -> bool {
        // Past the depth limit the run has failed and its report names the limit: walking on cannot change that,
        // and a schema that recurses without consuming the instance (`allOf` of two `$ref`s to itself, `not` of
        // one) would walk on exponentially, every member of every level reaching the limit again.
        if self.too_deep {
            return false;
        }
        let schema = self.schema;
        let node = &schema.nodes[id as usize];
        if let Body::Bool(true) = node.body {
            // `true` evaluates nothing by itself; the keyword that applied it records what it covered.
            let _ = want;
            return true;
        }
        if self.admits_in_place(parent, node, instance) {
            return true;
        }
        let frame = Frame {
            parent: Some(parent),
            step,
            schema_step,
            resource: node.resource,
            depth: parent.depth + 1,
            born: self.violations.len(),
        };
        if frame.depth > MAX_DEPTH {
            self.reach_depth_limit(&frame, node);
            return false;
        }
        // A subtree the yes/no evaluator finds valid has nothing to report: the valid parts of an invalid instance
        // skip the collecting walk. Only array items: siblings under one schema, most of them valid when some are
        // not, where an object member is about as likely to be what failed its object, and a question answered no
        // is a yes/no walk on top of the collecting one (asking about members too cost more than it saved on the
        // small-schema and fhir benchmark rows). Scalars too, on a throttle of their own (see
        // `worth_prechecking_scalar`); a lone `type` is answered in place above. Only under fewer than
        // `PRECHECK_NESTING` subtrees that answered no, so that no part
        // of the instance is asked about more than that many times. Not when the caller tracks what was evaluated,
        // annotations are kept, or the dynamic scope matters (a yes/no run from here cannot see it).
        if self.collect
            && self.failed_prechecks < PRECHECK_NESTING
            && matches!(step, Some(Step::Index(_)))
            && match instance {
                Value::Array(items) => self.worth_prechecking(items.len(), || items.iter().all(is_scalar)),
                Value::Object(members) => {
                    self.worth_prechecking(members.len(), || members.values().all(is_scalar))
                }
                _ => self.worth_prechecking_scalar(),
            }
            && want.is_none()
            && self.annotations.is_none()
            && !schema.dynamic_scope_matters
        {
            let scalar = is_scalar(instance);
            if crate::flag::holds_at(schema, id, instance, frame.depth) {
                if scalar {
                    self.scalar_prechecks_held = self.scalar_prechecks_held.saturating_add(1);
                } else {
                    self.prechecks_held = self.prechecks_held.saturating_add(1);
                }
                return true;
            }
            if scalar {
                // Nothing below a scalar is asked about again: its walk needs no nesting count.
                self.scalar_prechecks_failed = self.scalar_prechecks_failed.saturating_add(1);
                return self.node(id, instance, &frame, None);
            }
            self.prechecks_failed = self.prechecks_failed.saturating_add(1);
            self.failed_prechecks += 1;
            let valid = self.node(id, instance, &frame, None);
            self.failed_prechecks -= 1;
            return valid;
        }
        self.node(id, instance, &frame, want)
    }

    /// Whether an array or object of `len` entries is worth asking the yes/no evaluator about before walking it:
    /// large ones always; small ones when their entries are all scalars (a question then costs one flat scan) and
    /// while this run's questions were answered yes at least twice as often as no (an instance whose parts keep
    /// failing would pay for each question and then walk the part anyway).
    #[inline]
    fn worth_prechecking(&self, len: usize, flat: impl FnOnce() -> bool) -> bool {
        len >= PRECHECK_MIN_LEN
            || (len > 0 && self.prechecks_failed.saturating_mul(2) <= self.prechecks_held && flat())
    }

    /// Whether a scalar item is worth asking the yes/no evaluator about before walking it: its question costs a
    /// fraction of its walk (which links a frame and dispatches every keyword with a report in mind) when it holds,
    /// and the walk again when it fails, so it is asked while its run's scalar questions were answered no at most
    /// one time more than twice as often as yes (the first failing item, often the one that failed the instance,
    /// does not stop the questions; an array of failing scalars stops them after two).
    #[inline]
    fn worth_prechecking_scalar(&self) -> bool {
        self.scalar_prechecks_failed <= self.scalar_prechecks_held.saturating_mul(2).saturating_add(1)
    }

    /// Records that the depth limit was reached. That fails the whole run (see `run`), wherever it happens: a
    /// result cut off at the limit must not be turned into success by `not` or a union, nor differ with where the
    /// limit fell. Out of line, so that `descend`'s frame stays small on the recursion path.
    #[cold]
    #[inline(never)]
    fn reach_depth_limit(&mut self, frame: &Frame<'_, '_>, node: &Node) {
        let first = !self.too_deep;
        self.too_deep = true;
        if !(self.collect || (first && self.reporting)) {
            return;
        }
        let violation = Violation::without_keyword(
            frame.instance_location(),
            ViolationKind::DepthLimit,
            &frame.keyword_path(),
            &self.schema.absolute(node).to_string(),
            &format!("evaluation depth limit of {MAX_DEPTH} exceeded"),
        );
        if self.collect {
            self.violations.push(violation);
        } else {
            self.first_too_deep = Some(violation);
        }
    }

    /// Records that a reference that resolves to nothing (entry `index`, written in the keyword of `kind`) was
    /// reached.
    /// That fails the whole run, as the depth limit does: `not` or a union must not turn it into success. Each one
    /// reached is reported, when collecting or not.
    #[cold]
    #[inline(never)]
    pub(crate) fn reach_unresolved(&mut self, frame: &Frame<'_, '_>, index: u32, kind: ViolationKind) {
        self.unresolved = true;
        if !self.reporting {
            return;
        }
        let schema = self.schema;
        let Some(entry) = schema.unresolved.get(index as usize) else {
            return;
        };
        if !self.collect && self.unresolved_reached.len() >= UNRESOLVED_ASIDE_MAX {
            return;
        }
        let violation = Violation::unresolved(
            frame.instance_location(),
            kind,
            &format!("{}/{}", frame.keyword_path(), kind.name()),
            entry.location(),
            &entry.message(),
            entry.reference(),
        );
        if self.collect {
            self.expect_violations();
            self.violations.push(violation);
        } else if self.unresolved_reached.len() < UNRESOLVED_ASIDE_MAX {
            self.unresolved_reached.push(violation);
        }
    }

    /// Whether `node` is a lone `type` that admits the instance: then nothing is recorded and no frame is needed
    /// (unless annotations are collected, or the depth limit is reached, which the full path reports). Loops over
    /// many items call this before [`descend`](Self::descend).
    #[inline]
    pub(crate) fn admits_in_place(&self, parent: &Frame<'_, '_>, node: &Node, instance: &Value) -> bool {
        node.only_type.is_some_and(|types| {
            parent.depth < MAX_DEPTH && self.annotations.is_none() && types.admits(instance)
        })
    }

    /// Evaluates a node in its own frame.
    fn node<'v>(
        &mut self,
        id: NodeId,
        instance: &'v Value,
        frame: &Frame<'_, 'v>,
        want: Option<&mut Evaluated<'v>>,
    ) -> bool {
        let schema = self.schema;
        let node = &schema.nodes[id as usize];
        let keywords = match &node.body {
            Body::Bool(true) => return true,
            Body::Bool(false) => {
                let detail = Detail::parts(&["no value is allowed here"]);
                return self.fail(frame, node, ViolationKind::False, detail);
            }
            Body::Keywords(keywords) => keywords,
        };
        let mark = self.annotations.as_ref().map(Vec::len);
        let mut local = (node.tracks_evaluated || want.is_some()).then(Evaluated::default);
        let mut valid = true;
        for keyword in keywords.iter() {
            if !crate::keywords::evaluate(self, keyword, node, instance, frame, &mut local) {
                valid = false;
                if !self.collect {
                    break;
                }
            }
        }
        if let Some(mark) = mark {
            self.settle_annotations(mark, valid, id, frame);
        }
        if valid && let (Some(want), Some(local)) = (want, local) {
            want.merge(local);
        }
        valid
    }

    /// Keeps a valid node's annotations (its own and its subschemas'), drops a failed one's.
    #[cold]
    fn settle_annotations(&mut self, mark: usize, valid: bool, id: NodeId, frame: &Frame<'_, '_>) {
        let Some(annotations) = self.annotations.as_mut() else {
            return;
        };
        if !valid {
            annotations.truncate(mark);
            return;
        }
        let schema = self.schema;
        let Some(own) = schema.annotations_of(id) else {
            return;
        };
        let node = &schema.nodes[id as usize];
        let instance_location = frame.instance_location();
        let keyword_path = frame.keyword_path();
        for (keyword, value) in own.iter() {
            annotations.push(Annotation {
                instance_location: instance_location.clone(),
                keyword_path: format!("{keyword_path}/{keyword}"),
                absolute: format!("{}/{keyword}", schema.absolute(node)),
                value: value.clone(),
            });
        }
    }

    /// Evaluates a subschema in flag mode (no violations recorded), for `not`, `if`, `contains` and union probes.
    pub(crate) fn probe<'v>(
        &mut self,
        parent: &Frame<'_, 'v>,
        id: NodeId,
        instance: &'v Value,
        step: Option<Step<'v>>,
        schema_step: &str,
        want: Option<&mut Evaluated<'v>>,
    ) -> bool {
        // In a run that writes a report, with nothing tracked: the yes/no evaluator answers (unless the depth limit
        // is reached, which this walk reports). A run without a report keeps its own path: the tests compare it with
        // the yes/no evaluator.
        if self.reporting
            && want.is_none()
            && self.annotations.is_none()
            && !self.schema.dynamic_scope_matters
            && let Some(valid) = crate::flag::answer_at(self.schema, id, instance, parent.depth + 1)
        {
            return valid;
        }
        let collect = std::mem::replace(&mut self.collect, false);
        let valid = self.descend(parent, id, instance, step, schema_step, want);
        self.collect = collect;
        valid
    }

    /// Records a violation of `keyword` (when collecting) and returns `false`.
    ///
    /// The keyword path, absolute location, message and missing property are written into one buffer of the exact
    /// size.
    #[cold]
    pub(crate) fn fail(
        &mut self,
        frame: &Frame<'_, '_>,
        node: &Node,
        kind: ViolationKind,
        detail: Detail<'_>,
    ) -> bool {
        if !self.collect {
            return false;
        }
        let keyword = kind.name();
        // A `false` subschema is located at itself, a keyword one step below its schema.
        let keyword_step = if kind == ViolationKind::False {
            0
        } else {
            keyword.len() + 1
        };
        let missing = detail.missing_property.unwrap_or_default();
        let absolute = self.schema.absolute(node);
        // The texts' bytes after the keyword path.
        let rest_bytes = keyword_step
            + absolute.len()
            + keyword_step
            + keyword.len()
            + 2
            + detail.message.len()
            + detail.parts.iter().map(|part| part.len()).sum::<usize>()
            + missing.len();
        let extra = match detail.extra {
            Some(Extra::Key(key)) => Some(Segment::Key(key)),
            Some(Extra::Index(idx)) => Some(Segment::Index(idx)),
            None => None,
        };
        // A run's first violation (most reports have one) builds its paths from the frame chain; later ones from
        // the last one's, extended from where the chains part (see `paths`).
        let first = self.violations.is_empty();
        #[cfg(test)]
        let first = first || self.paths_from_scratch;
        let (instance_location, mut text) = if first {
            let (location_bytes, keyword_path_bytes) = frame.path_lengths();
            let mut instance_location = Location::with_capacity(
                location_bytes
                    + match extra {
                        Some(Segment::Key(key)) => key.len() + 1,
                        Some(Segment::Index(_)) => 8,
                        None => 0,
                    },
            );
            let mut text = ViolationText::with_capacity(keyword_path_bytes + rest_bytes);
            frame.write_paths(&mut instance_location, Some(text.buffer()));
            if let Some(extra) = extra {
                instance_location.push(extra);
            }
            (instance_location, text)
        } else {
            let paths = self.paths.get_or_insert_with(paths::Paths::adopt);
            paths.reach(frame, self.violations.len());
            let keyword_path = paths.keyword_path();
            let mut text = ViolationText::with_capacity(keyword_path.len() + rest_bytes);
            text.push(keyword_path);
            (paths.location(extra), text)
        };
        if keyword_step > 0 {
            text.push("/");
            text.push(keyword);
        }
        text.end_keyword_path();
        text.push(absolute.base);
        text.push(absolute.fragment);
        if keyword_step > 0 {
            text.push("/");
            text.push(keyword);
        }
        text.end_absolute();
        text.push(keyword);
        text.push(": ");
        text.push(&detail.message);
        for part in detail.parts {
            text.push(part);
        }
        text.end_message();
        text.push(missing);
        // Room for a small report at once, rather than growing through 4 and 8 and moving it each time.
        self.expect_violations();
        self.violations.push(Violation::new(
            instance_location,
            kind,
            text,
            detail.expected_types,
            detail.missing_property.is_some(),
        ));
        if (1..=MESSAGE_BUFFER_MAX_BYTES).contains(&detail.message.capacity()) {
            self.spare_message = detail.message;
        }
        false
    }
}

/// Whether a value is neither an array nor an object.
fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

impl Drop for Evaluator<'_> {
    /// Hands the message buffer and the path buffers to the next run on this thread.
    fn drop(&mut self) {
        let spare = std::mem::take(&mut self.spare_message);
        if spare.capacity() > 0 {
            // After the thread's locals are gone (a run during thread exit) the buffer is simply freed.
            let _ = SPARE_MESSAGE.try_with(|cell| cell.set(spare));
        }
        if let Some(paths) = self.paths.take() {
            paths.give_back();
        }
    }
}

thread_local! {
    /// The message buffer between runs on this thread (at most [`MESSAGE_BUFFER_MAX_BYTES`] of capacity): a report's
    /// messages then cost no allocation of their own, even in a report of one violation.
    static SPARE_MESSAGE: Cell<String> = const { Cell::new(String::new()) };
}

#[cfg(test)]
mod tests;

/// A multiplicative hasher for memo keys (node id, instance address, mode): they are not attacker-chosen strings,
/// and SipHash would cost more than the evaluations it saves.
#[derive(Debug, Default)]
pub(crate) struct MemoHasher(u64);

impl Hasher for MemoHasher {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
