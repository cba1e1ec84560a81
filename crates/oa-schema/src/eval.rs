//! The evaluator: walks compiled nodes over an instance, either answering yes/no or collecting every violation.
//!
//! Paths are built lazily: each step pushes a `Frame` on the call stack, linked to its parent, and only a recorded
//! violation walks the chain to build its instance location and keyword path. The same chain is the dynamic scope
//! that `$dynamicRef` searches. Recursion is bounded by [`MAX_DEPTH`].

use crate::evaluated::Evaluated;
use crate::node::{Body, CompiledSchema, Node, NodeId, ResourceId};
use crate::violation::{SchemaLocation, Violation};
use oa_pointer::Location;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The deepest chain of nested schema evaluations allowed; deeper instances or `$ref` chains fail with a
/// depth violation instead of overflowing the stack.
pub(crate) const MAX_DEPTH: u32 = 512;

/// Reference hops a run makes before memoizing them (once a union has fallen back): below this, hashing costs
/// more than re-evaluating; above it, a union fanning out into the same children would grow exponentially.
pub(crate) const MEMO_AFTER_HOPS: u32 = 4096;

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
        }
    }
}

impl<'f, 'v> Frame<'f, 'v> {
    /// The frames from this one outward.
    pub(crate) fn ancestry(&self) -> impl Iterator<Item = &Frame<'f, 'v>> {
        std::iter::successors(Some(self), |frame| frame.parent)
    }

    fn instance_location(&self) -> Location {
        // The steps innermost first, on the stack when there are few; the text sized once.
        let mut buffer: [Option<Step<'v>>; 32] = [None; 32];
        let mut n_steps = 0;
        let mut overflow = Vec::new();
        let mut bytes = 0;
        for step in self.ancestry().filter_map(|frame| frame.step) {
            bytes += match step {
                Step::Key(key) => key.len() + 1,
                Step::Index(_) => 8,
            };
            match buffer.get_mut(n_steps) {
                Some(slot) => *slot = Some(step),
                None => overflow.push(step),
            }
            n_steps += 1;
        }
        let mut location = Location::with_capacity(bytes);
        let stacked = buffer.iter().take(n_steps).flatten();
        for step in overflow.iter().rev().chain(stacked.rev()) {
            match step {
                Step::Key(key) => location.push_key(key),
                Step::Index(idx) => location.push_index(*idx),
            }
        }
        location
    }

    fn keyword_path(&self) -> String {
        self.keyword_path_with("")
    }

    /// The keyword path with `suffix` appended, built in one allocation.
    fn keyword_path_with(&self, suffix: &str) -> String {
        let len: usize = self
            .ancestry()
            .map(|frame| frame.schema_step.len())
            .sum::<usize>()
            + suffix.len();
        let mut steps: [&str; 32] = [""; 32];
        let mut n_steps = 0;
        let mut path = String::with_capacity(len);
        for frame in self.ancestry() {
            if n_steps == steps.len() {
                // Deeper than the stack buffer: collect the rest on the heap.
                let mut all: Vec<&str> = self.ancestry().map(|frame| frame.schema_step).collect();
                all.reverse();
                all.iter().for_each(|step| path.push_str(step));
                path.push_str(suffix);
                return path;
            }
            steps[n_steps] = frame.schema_step;
            n_steps += 1;
        }
        for step in steps[..n_steps].iter().rev() {
            path.push_str(step);
        }
        path.push_str(suffix);
        path
    }
}

/// What a violation says beyond its keyword: built only on the error path.
#[derive(Debug)]
pub(crate) struct Detail {
    pub(crate) message: String,
    pub(crate) expected_types: Vec<&'static str>,
    pub(crate) missing_property: Option<String>,
    /// A further instance step (the missing or rejected property, the rejected item).
    pub(crate) extra: Option<Extra>,
}

/// An owned instance step appended to a violation's location.
#[derive(Debug)]
pub(crate) enum Extra {
    /// A member name.
    Key(String),
    /// An array index.
    Index(usize),
}

impl Detail {
    /// A plain message.
    pub(crate) fn message(message: String) -> Self {
        Self {
            message,
            expected_types: Vec::new(),
            missing_property: None,
            extra: None,
        }
    }
}

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
            discriminators: false,
            ref_hops: 0,
        }
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
        let memoizable = self.memo_enabled
            && self.ref_hops > MEMO_AFTER_HOPS
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
        };
        self.node(root, instance, &frame, None)
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
        };
        if frame.depth > MAX_DEPTH {
            if self.collect {
                self.violations.push(Violation {
                    instance_location: frame.instance_location(),
                    keyword: None,
                    schema_location: SchemaLocation::new(frame.keyword_path(), node.absolute().to_string()),
                    expected_types: Vec::new(),
                    missing_property: None,
                    message: format!("evaluation depth limit of {MAX_DEPTH} exceeded"),
                });
            }
            return false;
        }
        self.node(id, instance, &frame, want)
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
                return self.fail(
                    frame,
                    node,
                    "false",
                    Detail::message("no value is allowed here".to_owned()),
                );
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
            self.settle_annotations(mark, valid, node, frame);
        }
        if valid && let (Some(want), Some(local)) = (want, local) {
            want.merge(local);
        }
        valid
    }

    /// Keeps a valid node's annotations (its own and its subschemas'), drops a failed one's.
    #[cold]
    fn settle_annotations(&mut self, mark: usize, valid: bool, node: &Node, frame: &Frame<'_, '_>) {
        let Some(annotations) = self.annotations.as_mut() else {
            return;
        };
        if !valid {
            annotations.truncate(mark);
            return;
        }
        let Some(own) = &node.annotations else { return };
        let instance_location = frame.instance_location();
        let keyword_path = frame.keyword_path();
        for (keyword, value) in own.iter() {
            annotations.push(Annotation {
                instance_location: instance_location.clone(),
                keyword_path: format!("{keyword_path}/{keyword}"),
                absolute: format!("{}/{keyword}", node.absolute()),
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
        let collect = std::mem::replace(&mut self.collect, false);
        let valid = self.descend(parent, id, instance, step, schema_step, want);
        self.collect = collect;
        valid
    }

    /// Records a violation of `keyword` (when collecting) and returns `false`.
    #[cold]
    pub(crate) fn fail(
        &mut self,
        frame: &Frame<'_, '_>,
        node: &Node,
        keyword: &'static str,
        detail: Detail,
    ) -> bool {
        if self.collect {
            let mut instance_location = frame.instance_location();
            match &detail.extra {
                Some(Extra::Key(key)) => instance_location.push_key(key),
                Some(Extra::Index(idx)) => instance_location.push_index(*idx),
                None => {}
            }
            let (keyword_path, absolute) = if keyword == "false" {
                (frame.keyword_path(), node.absolute().to_string())
            } else {
                let mut absolute = String::with_capacity(node.absolute().len() + 1 + keyword.len());
                absolute.push_str(node.absolute());
                absolute.push('/');
                absolute.push_str(keyword);
                (
                    frame.keyword_path_with(&absolute[node.absolute().len()..]),
                    absolute,
                )
            };
            let mut message = String::with_capacity(keyword.len() + 2 + detail.message.len());
            message.push_str(keyword);
            message.push_str(": ");
            message.push_str(&detail.message);
            self.violations.push(Violation {
                instance_location,
                keyword: Some(keyword),
                schema_location: SchemaLocation::new(keyword_path, absolute),
                expected_types: detail.expected_types,
                missing_property: detail.missing_property,
                message,
            });
        }
        false
    }
}

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
