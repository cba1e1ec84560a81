//! Certain violations: what no continuation of the text can make valid, found while the text is read.
//!
//! A node is *reached certainly* at a value when the whole walk evaluates it there whatever the rest of the text
//! says: the root at the document, and from a node reached certainly, the subschemas of `properties`,
//! `patternProperties`, `additionalProperties` (the name decides which), `prefixItems` and `items` (the index
//! decides), and of `allOf` and a static `$ref` at the same value. Nothing is followed into `anyOf`, `oneOf`, `not`,
//! `if`, `contains`, `dependentSchemas`, `unevaluated*` or a `$dynamicRef`: whether they apply, or what they make of
//! a failure, waits for text not yet read. At a node reached certainly, these checks are final once their part of
//! the text is read, and each is made by the collecting evaluator itself with the frames the whole walk builds on
//! its way there (`eval/at.rs`), so the violation is the one the final report holds:
//!
//! - a completed scalar: the node's every keyword (the value is whole; unions inside the node see all of it);
//! - the first byte of a string, array or object: `type` (and a `false` schema);
//! - a completed member name: `additionalProperties: false` (with `properties` and `patternProperties` deciding);
//! - an array's item beyond `maxItems`;
//! - a string's characters beyond `maxLength`, while it is still read;
//! - an object's close: `required`, `dependentRequired`, `minProperties`, `maxProperties`; an array's close:
//!   `minItems`.

use crate::eval::{Evaluator, Reached, Step};
use crate::keywords::Keyword;
use crate::node::{Body, CompiledSchema, NodeId};
use crate::violation::{Violation, ViolationKind};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The most frames on the way to a node followed: past it, nothing is certain here (the depth limit is near, and the
/// whole walk may stop before it reaches the node).
const WAY_MAX: u32 = 256;

/// How far below [`WAY_MAX`] the nodes at a container streamed must be, so that its members' nodes (and theirs
/// through `allOf` and `$ref`, or the container is captured) are all followed.
const WAY_MARGIN: u32 = 2;

/// The most nodes reached certainly at one value (a schema whose `allOf`s fan out into the same nodes many times
/// over is followed only this far: fewer violations are early, none is wrong).
const REACHES_MAX: usize = 64;

/// The last index at which an item rejected by `items: false` is reported early (its check is made over a proxy
/// array this long).
const ITEMS_REJECTED_MAX: usize = 1 << 12;

/// The most comparisons made to drop a value's repeated violations.
const DEDUPE_MAX: usize = 1 << 16;

/// The most name comparisons made to see that an object's close passes `required` without the evaluator.
const NAMES_COMPARED: usize = 1 << 12;

/// The longest `maxLength` watched while a string is read (a proxy string this long is built once it is passed).
const MAX_LENGTH_WATCHED: u64 = 1 << 16;

/// One step of the instance, owned.
#[derive(Debug)]
enum OwnedStep {
    Key(Box<str>),
    Index(usize),
}

/// One frame of the way the whole walk takes to a node.
#[derive(Debug)]
struct Link {
    parent: Option<Arc<Link>>,
    step: Option<OwnedStep>,
    /// Reached by `$ref` (keyword path segment `/$ref`), else by the node's own path from its parent schema.
    via_ref: bool,
    node: NodeId,
    depth: u32,
}

impl Link {
    fn child(parent: &Arc<Link>, step: Option<OwnedStep>, via_ref: bool, node: NodeId) -> Option<Arc<Self>> {
        let depth = parent.depth + 1;
        (depth < WAY_MAX).then(|| {
            Arc::new(Self {
                parent: Some(Arc::clone(parent)),
                step,
                via_ref,
                node,
                depth,
            })
        })
    }
}

/// A node reached certainly at the value being read, with the way there (whose last frame is the node's).
type Reach = Arc<Link>;

/// The nodes reached certainly at a value beginning (see [`Certain::entries`]).
#[derive(Debug)]
pub(crate) struct Entries(Vec<Reach>);

impl Entries {
    /// Each entry's node and evaluator depth.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = (NodeId, u32)> + '_ {
        self.0.iter().map(|reach| (reach.node, reach.depth))
    }
}

/// What the value being read is, once its first byte is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    String,
    Array,
    Object,
    /// A number or a literal: checked when complete.
    Other,
}

/// An open array or object, with the nodes reached certainly at it.
#[derive(Debug)]
struct Open {
    /// Its entries (the nodes reached from its container), then those reached through `allOf` and `$ref`.
    reaches: Vec<Reach>,
    entries: usize,
    /// Whether its value is kept (captured), to be checked whole when it closes (see [`streams`]).
    captured: bool,
    /// Where the violations found inside it start in `found`.
    mark: usize,
    /// Items so far (arrays).
    count: usize,
    /// Member names so far (objects).
    names: Vec<Box<str>>,
    object: bool,
}

/// A string value being read whose `maxLength` is watched.
#[derive(Debug)]
struct Watch {
    reaches: Vec<(Reach, u64)>,
    /// Characters certainly in the string so far (a `\u` escape counts none: two may make one character).
    chars: u64,
    /// Inside an escape: the next byte is its letter, or of its hex digits.
    escape: u8,
}

/// The certain-violation tracker (see the module's documentation).
#[derive(Debug)]
pub(crate) struct Certain {
    stack: Vec<Open>,
    /// The nodes reached certainly at the next value (its entries, before `allOf` and `$ref` are followed).
    next: Vec<Reach>,
    /// The nodes reached certainly at the scalar being read.
    scalar: Vec<Reach>,
    watch: Option<Watch>,
    /// Every certain violation found, in the order found.
    found: Vec<Violation>,
    /// Where this value's violations start in `found` (repeats within one value are dropped).
    value_mark: usize,
    /// Whether `found` is the whole report (the document's value is not kept): a check that reaches the depth limit
    /// is then kept with the limit's violation rather than dropped.
    pub(super) whole: bool,
    /// Whether the run stops at its first certain violation (`Incremental::first_violation_only`): one is kept, and
    /// nothing is evaluated after it.
    pub(super) first: bool,
}

impl Certain {
    pub(crate) fn new(schema: &CompiledSchema, whole: bool) -> Self {
        let root = Arc::new(Link {
            parent: None,
            step: None,
            via_ref: false,
            node: schema.root,
            depth: 0,
        });
        Self {
            stack: Vec::new(),
            next: vec![root],
            scalar: Vec::new(),
            watch: None,
            found: Vec::new(),
            value_mark: 0,
            whole,
            first: false,
        }
    }

    /// Hands over every violation found.
    pub(crate) fn take_found(&mut self) -> Vec<Violation> {
        std::mem::take(&mut self.found)
    }

    /// Every certain violation found so far, in the order found.
    pub(crate) fn found(&self) -> &[Violation] {
        &self.found
    }

    /// A value begins, its first byte telling what it is; for an array or object, whether its value must be kept
    /// (captured) to be checked whole when it closes.
    pub(crate) fn value_start(&mut self, schema: &CompiledSchema, start: Start) -> bool {
        let entries = self.entries(schema);
        self.started(schema, start, entries)
    }

    /// The nodes reached certainly at the value beginning (its entries), with what its place decides at once:
    /// an item's count (`maxItems`, `items: false`). [`started`](Self::started) goes on with them, unless the
    /// value is skipped whole ([`skippable`](Self::skippable)).
    pub(crate) fn entries(&mut self, schema: &CompiledSchema) -> Entries {
        self.value_mark = self.found.len();
        let mut entries = std::mem::take(&mut self.next);
        if let Some(open) = self.stack.last_mut()
            && !open.object
        {
            let index = open.count;
            open.count += 1;
            let reaches = std::mem::take(&mut open.reaches);
            let mut rejected = Vec::new();
            entries = item_entries(schema, &reaches, index, &mut rejected);
            self.max_items(schema, &reaches, index + 1);
            if !rejected.is_empty() && index < ITEMS_REJECTED_MAX {
                // `items: false` reports each item beyond the allowed ones at the item.
                let proxy = Value::Array(vec![Value::Null; index + 1]);
                let at = format!("/{index}");
                for (reach, keyword) in rejected {
                    self.record_where(schema, &reach, Some(keyword), &proxy, |violation| {
                        violation.instance_location().to_string().ends_with(&at)
                    });
                }
            }
            if let Some(open) = self.stack.last_mut() {
                open.reaches = reaches;
            }
        }
        Entries(entries)
    }

    /// Whether the array or object beginning with `entries` may be read in one step and checked whole at them: each
    /// entry's way is short enough for its node to be judged there.
    pub(crate) fn judgeable(&self, entries: &Entries) -> bool {
        entries.0.iter().all(|reach| reach.depth + WAY_MARGIN < WAY_MAX)
    }

    /// Whether the innermost open container is captured (its value is kept, to be checked whole when it closes).
    pub(crate) fn in_captured(&self) -> bool {
        self.stack.last().is_some_and(|open| open.captured)
    }

    /// An array or object beginning at `entries` was read whole: checked at each entry (the yes/no evaluator
    /// first), as a captured container is at its close.
    pub(crate) fn checked(&mut self, schema: &CompiledSchema, entries: Entries, value: &Value) {
        self.value_mark = self.found.len();
        for reach in &entries.0 {
            self.check_whole(schema, reach, value);
        }
    }

    /// An array or object beginning at `entries` was read whole (found not valid, or in a run that reports every
    /// violation: as `validate`, no yes/no run first): checked at each entry by the collecting evaluator, as a
    /// captured container is at its close.
    pub(crate) fn judged(&mut self, schema: &CompiledSchema, entries: Entries, value: &Value) {
        self.value_mark = self.found.len();
        for reach in &entries.0 {
            // Straight to the collecting evaluator: the caller's read found it not valid (or could not tell, and
            // then the walk finds nothing).
            self.record(schema, reach, None, value);
        }
    }

    /// An array or object beginning at `entries`, complete in `text` (well-formed or not), judged at each entry in
    /// one pass over the text: the validating deserializer's collecting mode (`typed/collect.rs`) with the entry's
    /// way, no value built; in a run that stops at its first violation, up to the first. `Some(true)`: valid at
    /// each; `Some(false)`: its violations are kept; `None`: the pass did not answer at some entry (nothing is
    /// kept: the caller reads the value).
    pub(crate) fn collected(
        &mut self,
        schema: &CompiledSchema,
        entries: &Entries,
        text: &str,
    ) -> Option<bool> {
        let mut found = Vec::new();
        for reach in &entries.0 {
            let mut at = with_way(schema, reach, |way| {
                crate::typed::collect_at(schema, way, reach.node, text, self.first)
            })?;
            if self.first && !at.is_empty() {
                at.truncate(1);
                found = at;
                break;
            }
            found.append(&mut at);
        }
        if found.is_empty() {
            return Some(true);
        }
        // Kept as found: repeats (a violation reached by two ways) are dropped by the report's sort.
        self.value_mark = self.found.len();
        self.found.append(&mut found);
        Some(false)
    }

    /// A value begins at `entries`, its first byte telling what it is: as [`value_start`](Self::value_start).
    pub(crate) fn started(&mut self, schema: &CompiledSchema, start: Start, entries: Entries) -> bool {
        let Entries(entries) = entries;
        let proxy = match start {
            Start::String => Value::String(String::new()),
            Start::Array => Value::Array(Vec::new()),
            Start::Object => Value::Object(Map::new()),
            Start::Other => {
                self.scalar = entries;
                return false;
            }
        };
        let n_entries = entries.len();
        let (reaches, truncated) = closure(schema, entries);
        for reach in &reaches {
            let node = &schema.nodes[reach.node as usize];
            match &node.body {
                Body::Bool(false) => self.record(schema, reach, None, &proxy),
                Body::Bool(true) => {}
                Body::Keywords(keywords) => {
                    for keyword in keywords.iter() {
                        if let Keyword::Type(types) = keyword
                            && !types.admits(&proxy)
                        {
                            self.record(schema, reach, Some(keyword), &proxy);
                        }
                    }
                }
            }
        }
        match start {
            Start::String => {
                let watched: Vec<(Reach, u64)> = reaches
                    .iter()
                    .flat_map(|reach| {
                        keywords_of(schema, reach.node)
                            .iter()
                            .filter_map(|keyword| match keyword {
                                Keyword::MaxLength(limit) if *limit < MAX_LENGTH_WATCHED => {
                                    Some((Arc::clone(reach), *limit))
                                }
                                _ => None,
                            })
                    })
                    .collect();
                self.watch = (!watched.is_empty()).then_some(Watch {
                    reaches: watched,
                    chars: 0,
                    escape: 0,
                });
                self.scalar = reaches;
                self.scalar.truncate(n_entries);
                false
            }
            _ => {
                let captured = self.stack.last().is_some_and(|open| open.captured)
                    || truncated
                    || !streams(schema, &reaches);
                self.stack.push(Open {
                    reaches,
                    entries: n_entries,
                    captured,
                    mark: self.value_mark,
                    count: 0,
                    names: Vec::new(),
                    object: start == Start::Object,
                });
                captured
            }
        }
    }

    /// Bytes of the string value being read (after its opening quote; its closing quote is not among them).
    pub(crate) fn text(&mut self, schema: &CompiledSchema, bytes: &[u8]) {
        let Some(watch) = &mut self.watch else {
            return;
        };
        for &byte in bytes {
            match watch.escape {
                0 if byte == b'\\' => watch.escape = 1,
                0 if byte & 0xC0 != 0x80 => watch.chars += 1,
                0 => {}
                1 if byte == b'u' => watch.escape = 5,
                1 => {
                    watch.chars += 1;
                    watch.escape = 0;
                }
                // Hex digits: `\u` escapes count none.
                left => watch.escape = if left == 2 { 0 } else { left - 1 },
            }
        }
        let chars = watch.chars;
        if !watch.reaches.iter().any(|(_, limit)| chars > *limit) {
            return;
        }
        let (passed, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut watch.reaches)
            .into_iter()
            .partition(|(_, limit)| chars > *limit);
        watch.reaches = kept;
        for (reach, limit) in passed {
            let proxy = Value::String("x".repeat(usize::try_from(limit).unwrap_or(0) + 1));
            if let Some(keyword) = keywords_of(schema, reach.node)
                .iter()
                .find(|keyword| matches!(keyword, Keyword::MaxLength(at) if *at == limit))
            {
                self.record(schema, &reach, Some(keyword), &proxy);
            }
        }
    }

    /// A scalar value is complete: its nodes' every keyword.
    pub(crate) fn scalar(&mut self, schema: &CompiledSchema, value: &Value) {
        self.watch = None;
        for reach in std::mem::take(&mut self.scalar) {
            self.check_whole(schema, &reach, value);
        }
    }

    /// A whole value against the reach's node: every keyword (asked of the yes/no evaluator first).
    fn check_whole(&mut self, schema: &CompiledSchema, reach: &Reach, value: &Value) {
        if !schema.dynamic_scope_matters && crate::flag::holds_at(schema, reach.node, value, reach.depth) {
            return;
        }
        self.record(schema, reach, None, value);
    }

    /// A member name is read: the nodes of its value, and `additionalProperties: false`.
    pub(crate) fn name(&mut self, schema: &CompiledSchema, name: &str) {
        let Some(open) = self.stack.last_mut() else {
            return;
        };
        open.names.push(name.into());
        let reaches = std::mem::take(&mut open.reaches);
        let mut next = Vec::new();
        let mut rejected = Vec::new();
        for reach in &reaches {
            for keyword in keywords_of(schema, reach.node) {
                member_entries(schema, reach, keyword, name, &mut next, &mut rejected);
            }
        }
        if let Some(open) = self.stack.last_mut() {
            open.reaches = reaches;
        }
        self.next = next;
        if rejected.is_empty() {
            return;
        }
        self.value_mark = self.found.len();
        let mut proxy = Map::new();
        proxy.insert(name.to_owned(), Value::Null);
        let proxy = Value::Object(proxy);
        for (reach, keyword, kind) in rejected {
            // The member's value is not known: only what the keyword says of its name.
            self.record_where(schema, &reach, Some(keyword), &proxy, |violation| {
                violation.kind() == kind
            });
        }
    }

    /// The innermost array or object closes (`value`: its value, when kept).
    pub(crate) fn close(&mut self, schema: &CompiledSchema, value: Option<&Value>) {
        let Some(open) = self.stack.pop() else {
            return;
        };
        // The document itself, when its value is kept, is validated whole by `finish` right after: not twice.
        let document_kept = self.stack.is_empty() && !self.whole;
        if open.captured
            && !document_kept
            && !self.stack.last().is_some_and(|parent| parent.captured)
            && let Some(value) = value
        {
            // Checked whole, at its entries (the nodes reached through `allOf` and `$ref` are their part).
            self.value_mark = open.mark;
            for reach in &open.reaches[..open.entries] {
                self.check_whole(schema, reach, value);
            }
        }
        self.value_mark = self.found.len();
        let mut proxy = None;
        for reach in &open.reaches {
            for keyword in keywords_of(schema, reach.node) {
                let counted = match keyword {
                    // Told from the names first: the evaluator runs only where the keyword fails.
                    Keyword::Required(required) => open.object && !has_all(&open.names, required),
                    Keyword::MinProperties(limit) => open.object && (open.names.len() as u64) < *limit,
                    Keyword::MaxProperties(limit) => open.object && (open.names.len() as u64) > *limit,
                    Keyword::DependentRequired(_) => open.object,
                    Keyword::MinItems(limit) => !open.object && (open.count as u64) < *limit,
                    Keyword::Shape(shape) => {
                        if open.object {
                            for original in shape.originals.iter() {
                                if let Keyword::Required(required) = original
                                    && !has_all(&open.names, required)
                                {
                                    let proxy = proxy.get_or_insert_with(|| close_proxy(&open));
                                    self.record(schema, reach, Some(original), proxy);
                                }
                            }
                        }
                        false
                    }
                    _ => false,
                };
                if counted {
                    let proxy = proxy.get_or_insert_with(|| close_proxy(&open));
                    self.record(schema, reach, Some(keyword), proxy);
                }
            }
        }
    }

    /// `maxItems` passed at the array's `count`th item.
    fn max_items(&mut self, schema: &CompiledSchema, reaches: &[Reach], count: usize) {
        for reach in reaches {
            for keyword in keywords_of(schema, reach.node) {
                if let Keyword::MaxItems(limit) = keyword
                    && count as u64 == limit.saturating_add(1)
                {
                    let proxy = Value::Array(vec![Value::Null; count]);
                    self.record(schema, reach, Some(keyword), &proxy);
                }
            }
        }
    }

    /// Evaluates `keyword` of the reach's node (or the whole node) over `instance` there, and keeps what it finds.
    fn record(
        &mut self,
        schema: &CompiledSchema,
        reach: &Reach,
        keyword: Option<&Keyword>,
        instance: &Value,
    ) {
        self.record_where(schema, reach, keyword, instance, |_| true);
    }

    /// As [`record`](Self::record), keeping only the violations `keep` says.
    fn record_where(
        &mut self,
        schema: &CompiledSchema,
        reach: &Reach,
        keyword: Option<&Keyword>,
        instance: &Value,
        keep: impl Fn(&Violation) -> bool,
    ) {
        if self.first && !self.found.is_empty() {
            // The run has its violation: nothing more is evaluated.
            return;
        }
        let (found, too_deep) = with_way(schema, reach, |way| {
            let mut ev = Evaluator::new(schema, true);
            match keyword {
                None => ev.node_at(way, reach.node, instance),
                Some(keyword) => ev.keyword_at(way, reach.node, keyword, instance),
            }
        });
        if too_deep && !self.whole {
            // The whole walk stops at the limit: what it reports after it is not known.
            return;
        }
        // Repeats of what this value already reported are dropped here (the report drops them anyway), unless there
        // are too many to compare.
        let before = self.found.len();
        let dedupe = (before - self.value_mark).saturating_mul(found.len()) <= DEDUPE_MAX;
        for violation in found {
            if !keep(&violation) || (!self.whole && violation.keyword().is_none()) {
                continue;
            }
            if !dedupe || !self.found[self.value_mark..before].contains(&violation) {
                self.found.push(violation);
            }
        }
        if self.first {
            self.found.truncate(1);
        }
    }
}

/// Runs `then` with the way the whole walk takes to the reach's node (outermost frame first).
fn with_way<R>(schema: &CompiledSchema, reach: &Reach, then: impl FnOnce(&[Reached<'_>]) -> R) -> R {
    let mut way: Vec<Reached<'_>> =
        std::iter::successors(Some(reach.as_ref()), |link| link.parent.as_deref())
            .map(|link| Reached {
                step: link.step.as_ref().map(|step| match step {
                    OwnedStep::Key(key) => Step::Key(key),
                    OwnedStep::Index(index) => Step::Index(*index),
                }),
                schema_step: match (&link.parent, link.via_ref) {
                    (None, _) => "",
                    (Some(_), true) => "/$ref",
                    (Some(_), false) => schema.nodes[link.node as usize].relative(),
                },
                resource: schema.nodes[link.node as usize].resource,
                // `at` and `collect_at` do not read it.
                stamp: 0,
            })
            .collect();
    way.reverse();
    then(&way)
}

/// Whether every name of `required` is certainly among `names` (compared one by one, up to [`NAMES_COMPARED`]
/// comparisons; beyond, the evaluator decides).
fn has_all(names: &[Box<str>], required: &[Box<str>]) -> bool {
    names.len().saturating_mul(required.len()) <= NAMES_COMPARED
        && required.iter().all(|wanted| names.contains(wanted))
}

/// What an object's or array's close is checked on: its names (values not needed) or its count.
fn close_proxy(open: &Open) -> Value {
    if open.object {
        Value::Object(
            open.names
                .iter()
                .map(|name| (name.to_string(), Value::Null))
                .collect(),
        )
    } else {
        Value::Array(vec![Value::Null; open.count])
    }
}

fn keywords_of(schema: &CompiledSchema, id: NodeId) -> &[Keyword] {
    match &schema.nodes[id as usize].body {
        Body::Keywords(keywords) => keywords,
        Body::Bool(_) => &[],
    }
}

/// The nodes reached certainly at a value from its entries: each entry, and through `allOf` and static `$ref`;
/// `true` when some were left out (too many, or too deep).
fn closure(schema: &CompiledSchema, entries: Vec<Reach>) -> (Vec<Reach>, bool) {
    let mut reaches = entries;
    let mut at = 0;
    while let Some(reach) = reaches.get(at).cloned() {
        at += 1;
        for keyword in keywords_of(schema, reach.node) {
            let (ids, via_ref): (&[NodeId], bool) = match keyword {
                Keyword::AllOf(ids) => (ids, false),
                Keyword::Ref(target) => (std::slice::from_ref(target), true),
                _ => continue,
            };
            for &id in ids {
                match Link::child(&reach, None, via_ref, id) {
                    Some(link) if reaches.len() < REACHES_MAX => reaches.push(link),
                    _ => return (reaches, true),
                }
            }
        }
    }
    (reaches, false)
}

/// Whether an array or object at `reaches` can be checked as it goes by, without its value: every keyword of every
/// node there is checked by this tracker (at the first byte, a name, an item or the close) or applies to the
/// members and items, which are checked in turn, or does nothing to an array or object; and the way to each is
/// short enough that its members' ways are followed. Anything else (a union, `not`, `if`, `contains`,
/// `uniqueItems`, `enum`/`const`, `propertyNames`, `dependentSchemas`, `dependencies`, `unevaluated*`, a dynamic or
/// unresolved reference, `items: false`) needs the value: it is captured, and checked whole when it closes.
fn streams(schema: &CompiledSchema, reaches: &[Reach]) -> bool {
    reaches.iter().all(|reach| {
        reach.depth + WAY_MARGIN < WAY_MAX
            && keywords_of(schema, reach.node)
                .iter()
                .all(|keyword| match keyword {
                    Keyword::Items { node, .. } => {
                        !matches!(schema.nodes[*node as usize].body, Body::Bool(false))
                    }
                    // `enum` and `const` need the value; `type` is checked at the first byte, and the scalar keywords do
                    // nothing to a container.
                    Keyword::Const(_) | Keyword::Enum(_) => false,
                    _ if keyword.checks_value_only() => true,
                    Keyword::Ref(_)
                    | Keyword::MaxItems(_)
                    | Keyword::MinItems(_)
                    | Keyword::PrefixItems(_)
                    | Keyword::MaxProperties(_)
                    | Keyword::MinProperties(_)
                    | Keyword::Required(_)
                    | Keyword::DependentRequired(_)
                    | Keyword::Properties { .. }
                    | Keyword::PatternProperties(_)
                    | Keyword::AdditionalProperties { .. }
                    | Keyword::Shape(_)
                    | Keyword::AllOf(_) => true,
                    _ => false,
                })
    })
}

/// The nodes reached certainly at item `index` of an array reached at `reaches`; an `items: false` that rejects
/// the item goes to `rejected`.
fn item_entries<'s>(
    schema: &'s CompiledSchema,
    reaches: &[Reach],
    index: usize,
    rejected: &mut Vec<(Reach, &'s Keyword)>,
) -> Vec<Reach> {
    let mut entries = Vec::new();
    for reach in reaches {
        for keyword in keywords_of(schema, reach.node) {
            let id = match keyword {
                Keyword::PrefixItems(ids) => ids.get(index).copied(),
                Keyword::Items { node, skip, .. } if index >= *skip => {
                    if matches!(schema.nodes[*node as usize].body, Body::Bool(false)) {
                        rejected.push((Arc::clone(reach), keyword));
                        continue;
                    }
                    Some(*node)
                }
                _ => None,
            };
            if let Some(id) = id
                && let Some(link) = Link::child(reach, Some(OwnedStep::Index(index)), false, id)
            {
                entries.push(link);
            }
        }
    }
    entries
}

/// The nodes `keyword` of a node reached at an object makes reached at its member `name`; an
/// `additionalProperties: false` that rejects the name goes to `rejected`.
fn member_entries<'s>(
    schema: &'s CompiledSchema,
    reach: &Reach,
    keyword: &'s Keyword,
    name: &str,
    next: &mut Vec<Reach>,
    rejected: &mut Vec<(Reach, &'s Keyword, ViolationKind)>,
) {
    let mut enter = |id: NodeId| {
        if let Some(link) = Link::child(reach, Some(OwnedStep::Key(name.into())), false, id) {
            next.push(link);
        }
    };
    match keyword {
        Keyword::Properties { entries, .. } => {
            if let Some((_, id)) = entries.iter().find(|(key, _)| key.as_ref() == name) {
                enter(*id);
            }
        }
        Keyword::PatternProperties(patterns) => {
            for (regex, id) in patterns.iter() {
                match regex.is_match(name) {
                    Ok(true) => enter(*id),
                    Ok(false) => {}
                    // Reported by the keyword, at the member.
                    Err(_) => rejected.push((Arc::clone(reach), keyword, ViolationKind::PatternProperties)),
                }
            }
        }
        Keyword::AdditionalProperties {
            node,
            names,
            patterns,
        } => {
            if crate::keywords::properties::is_declared(name, names, patterns) {
                return;
            }
            match schema.nodes[*node as usize].body {
                Body::Bool(false) => {
                    rejected.push((Arc::clone(reach), keyword, ViolationKind::AdditionalProperties));
                }
                Body::Bool(true) => {}
                Body::Keywords(_) => enter(*node),
            }
        }
        Keyword::Shape(shape) => {
            for original in shape.originals.iter() {
                member_entries(schema, reach, original, name, next, rejected);
            }
        }
        _ => {}
    }
}
