//! ECMA-262 regular expressions for `pattern`, `patternProperties` and `format: regex`, with a bounded budget.
//!
//! A pattern is parsed with ECMA-262's `u`-flag grammar (see [`parse`] for the Annex B leniencies: escaped ASCII
//! punctuation, lone `]`, `{`, `}`, and `[\w-.]` are literals), then written out for an engine so that it means what ECMA-262
//! says: `\d`, `\w`, `\b` and their negations are ASCII, `\s` is ECMA's WhiteSpace plus LineTerminator (with
//! U+FEFF and every Zs), `.` matches any code point but a line terminator, `^`/`$` match only at the ends of the
//! string (no final-newline exception), and characters are code points (`\u{1F432}` and `\uD83D\uDC32` alike).
//!
//! Two routes without an engine, then two engines:
//! - anchored sequences of ASCII classes for which greedy matching is exact (`^ORD-[0-9]{6}$`) are matched by a
//!   loop over the string (see [`anchored`]);
//! - other sequences of ASCII classes and `.`, with any quantifiers and optional `^` and `$`, that expand to at
//!   most 63 positions (`f.*o`, `A[0-9]{2}Z`) run on a bit-parallel automaton of one `u64` (see [`sequence`]): a
//!   few hundred bytes per pattern, where the `regex` crate's first match allocates about 29 KiB;
//! - other patterns without lookaround or backreferences run on the `regex` crate: time linear in the string for
//!   a given pattern, never over budget;
//! - patterns with lookaround or backreferences run on fancy-regex, under a budget of two parts. Before matching,
//!   a string too long for the pattern is refused: fancy-regex's own limit does not count the scans it runs inside
//!   lookarounds, so a match can cost a power of the string's length. We bound that power by the pattern's shape
//!   (its "work degree": 2 for a lookaround or backreference tried at every start position, plus 1 for each
//!   repetition or lookaround around it) and refuse when `bytes^degree × (1 + pattern bytes / 32)` exceeds
//!   [`MAX_BACKTRACKING_WORK`] (2^22): about 2 KiB for `(?=.*x)y`, about 160 bytes for `(?:(?=.*x).)*y`. During
//!   matching, more than [`BACKTRACK_LIMIT`] backtracking steps stop it. Either way [`EcmaRegex::is_match`]
//!   returns [`RegexBudgetExceeded`]: the caller reports a violation that names the budget, and nothing hangs.
//!   Both limits are estimates, not proofs. The work limit was 2^26 until fuzzing found `.(?:(?=.*x).)*y` on a
//!   204-byte string (8.5 million units, within that limit) taking about a second of CPU for the fuzz target's
//!   16 or so matches of it in an optimized build: some 7 ns a unit, so 2^26 units allowed about half a second
//!   per match, and a `validate` matches a string more than once. At 2^22 a match stays near 30 ms.
//!
//! Known differences from ECMA-262 (documented limits): a backreference to a group that did not take part in the
//! match fails to match instead of matching the empty string, and inline modifier groups `(?i:...)` (ES2025) are
//! rejected as syntax errors.

mod alternatives;
mod anchored;
mod ast;
mod parse;
mod plain;
mod printable;
mod separated;
mod sequence;
mod translate;
mod utf8;

use std::fmt;
use std::sync::{Arc, OnceLock};
use translate::Engine;

/// Backtracking steps allowed in one fancy-regex match (fancy-regex's own default, about 0.1 s of work).
pub(crate) const BACKTRACK_LIMIT: usize = 1_000_000;

/// The most work a backtracking match may be expected to do: `string bytes^degree × (1 + pattern bytes / 32)`.
pub(crate) const MAX_BACKTRACKING_WORK: u64 = 1 << 22;

/// The compiled size the `regex` crate may use for one pattern (its own default); larger patterns (say
/// `a{1000000}`) are compile errors rather than memory spikes.
const SIZE_LIMIT: usize = 10 << 20;

/// A compiled ECMA-262 pattern. Cheap to clone, `Send + Sync`.
#[derive(Debug, Clone)]
pub(crate) struct EcmaRegex {
    inner: Arc<Compiled>,
}

#[derive(Debug)]
enum Compiled {
    /// An anchored pattern of ASCII classes, matched without an engine (see [`anchored`]).
    Anchored(anchored::Anchored),
    /// Two or more anchored alternatives (`^([0-9]{3})$|^(default)$`), each matched as [`Self::Anchored`] (see
    /// [`alternatives`]).
    Alternatives(Box<[anchored::Anchored]>),
    /// A sequence of classes and `.`, matched without an engine by a bit-parallel automaton (see [`sequence`]).
    /// Boxed: its ASCII table would make every other variant as large.
    Sequence(Box<sequence::Sequence>),
    /// Runs of a class with single separators, `^A+(BA+)*$`, matched without an engine (see [`separated`]).
    /// Boxed, as the sequence is.
    Separated(Box<separated::Separated>),
    /// The `regex` crate's byte engine, on the string's UTF-8 (see [`utf8`] for why bytes).
    Linear(regex::bytes::Regex),
    /// A linear pattern whose engine is built on first use. Building the automaton is most of a small schema's
    /// compile time, and many patterns are never matched (a schema's unused branches, a validator built once and
    /// used on one instance). Only translations that are sure to build are deferred (see [`is_sure_to_build`]), so
    /// an invalid pattern still fails when the schema compiles.
    Deferred {
        text: Box<str>,
        regex: OnceLock<Option<regex::bytes::Regex>>,
    },
    /// fancy-regex, for lookaround and backreferences. Boxed: the engine is large and such patterns are rare, so
    /// the common routes' patterns stay small.
    Backtracking(Box<Backtracking>),
}

/// A backtracking pattern; `degree` and `weight` price a match before it runs (see the module docs).
#[derive(Debug)]
struct Backtracking {
    regex: fancy_regex::Regex,
    degree: u32,
    weight: u64,
}

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegexError {
    /// A short lowercase description.
    pub(crate) message: String,
}

/// A set of bytes, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    /// Adds `byte`.
    pub(crate) fn insert(&mut self, byte: u8) {
        if let Some(word) = self.0.get_mut(usize::from(byte >> 6)) {
            *word |= 1 << (byte & 63);
        }
    }

    /// Adds every byte of `other`.
    pub(crate) fn union(self, other: Self) -> Self {
        let [a, b, c, d] = self.0;
        let [e, f, g, h] = other.0;
        Self([a | e, b | f, c | g, d | h])
    }

    /// Whether `byte` is in.
    #[inline]
    pub(crate) fn contains(self, byte: u8) -> bool {
        self.0
            .get(usize::from(byte >> 6))
            .is_some_and(|word| (word >> (byte & 63)) & 1 != 0)
    }
}

/// A match gave up because it exceeded the matching budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegexBudgetExceeded;

impl RegexError {
    fn new(message: String) -> Self {
        Self { message }
    }
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for RegexBudgetExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("regular expression matching budget exceeded")
    }
}

impl EcmaRegex {
    /// Compiles an ECMA-262 pattern.
    pub(crate) fn new(pattern: &str) -> Result<Self, RegexError> {
        let mut node = parse::parse(pattern)?;
        if !node.needs_backtracking() && properties_exist(&node) {
            // Only the linear engine's automata shrink this way; an unknown `\p{..}` still fails below.
            node = node.without_optional_ends();
        }
        let compiled = if let Some(anchored) = anchored::Anchored::parse(pattern) {
            // Checked by the parser above like any pattern; matched without an engine.
            Compiled::Anchored(anchored)
        } else if let Some(alternatives) = alternatives::parse(pattern) {
            Compiled::Alternatives(alternatives)
        } else if let Some(sequence) = sequence::Sequence::parse(pattern) {
            Compiled::Sequence(Box::new(sequence))
        } else if let Some(separated) = separated::Separated::parse(pattern) {
            Compiled::Separated(Box::new(separated))
        } else if node.needs_backtracking() {
            let text = translate::translate(&node, Engine::Backtracking);
            let regex = fancy_regex::RegexBuilder::new(&text)
                .backtrack_limit(BACKTRACK_LIMIT)
                .delegate_size_limit(SIZE_LIMIT)
                .build()
                .map_err(|e| RegexError::new(format!("unsupported by the backtracking engine: {e}")))?;
            let weight = 1 + u64::try_from(pattern.len()).unwrap_or(u64::MAX) / 32;
            Compiled::Backtracking(Box::new(Backtracking {
                regex,
                degree: node.work_degree(),
                weight,
            }))
        } else if is_sure_to_build(&node) {
            Compiled::Deferred {
                text: translate::translate(&node, Engine::Linear).into(),
                regex: OnceLock::new(),
            }
        } else {
            let text = translate::translate(&node, Engine::Linear);
            let regex = build_linear(&text).map_err(|e| RegexError::new(engine_message(&e.to_string())))?;
            Compiled::Linear(regex)
        };
        Ok(Self {
            inner: Arc::new(compiled),
        })
    }

    /// The bytes a matching string can start with, when the pattern is anchored at the start and says (`^x-`):
    /// a filter that lets callers skip the match for most names. `None` when any string may match.
    pub(crate) fn first_bytes(&self) -> Option<ByteSet> {
        match &*self.inner {
            Compiled::Anchored(anchored) => anchored.first_bytes(),
            Compiled::Sequence(sequence) => sequence.first_bytes(),
            _ => None,
        }
    }

    /// Which route matches this pattern (for the fuzz targets, which compare the engine-free routes with the
    /// engine).
    #[cfg(feature = "fuzzing")]
    pub(crate) fn route(&self) -> &'static str {
        match &*self.inner {
            // Anchored patterns too, one after another: the fuzz targets check them as they check one.
            Compiled::Anchored(_) | Compiled::Alternatives(_) => "anchored",
            Compiled::Sequence(_) => "sequence",
            Compiled::Separated(_) => "separated",
            Compiled::Linear(_) => "linear",
            Compiled::Deferred { .. } => "deferred",
            Compiled::Backtracking(_) => "backtracking",
        }
    }

    /// Whether the pattern matches anywhere in `haystack` (patterns are not anchored).
    ///
    /// The engine-free anchored route (most patterns in schemas) is taken in the caller: the engines' arms need a
    /// stack frame that saves most registers, which cost a pattern check about 25 instructions on every call.
    #[inline]
    pub(crate) fn is_match(&self, haystack: &str) -> Result<bool, RegexBudgetExceeded> {
        match &*self.inner {
            Compiled::Anchored(anchored) => Ok(anchored.is_match(haystack)),
            _ => self.is_match_by_other_routes(haystack),
        }
    }

    /// [`Self::is_match`] by the other routes (the anchored arm is repeated so that the match needs no fallback).
    #[inline(never)]
    fn is_match_by_other_routes(&self, haystack: &str) -> Result<bool, RegexBudgetExceeded> {
        match &*self.inner {
            Compiled::Anchored(anchored) => Ok(anchored.is_match(haystack)),
            Compiled::Alternatives(alternatives) => Ok(alternatives::is_match(alternatives, haystack)),
            Compiled::Sequence(sequence) => Ok(sequence.is_match(haystack)),
            Compiled::Separated(separated) => Ok(separated.is_match(haystack)),
            Compiled::Linear(regex) => Ok(regex.is_match(haystack.as_bytes())),
            // A deferred translation always builds (pinned by tests); should that ever fail, the match reports the
            // budget rather than panicking.
            Compiled::Deferred { text, regex } => match regex.get_or_init(|| build_linear(text).ok()) {
                Some(regex) => Ok(regex.is_match(haystack.as_bytes())),
                None => Err(RegexBudgetExceeded),
            },
            Compiled::Backtracking(backtracking) => {
                let len = u64::try_from(haystack.len()).unwrap_or(u64::MAX);
                if len
                    .saturating_pow(backtracking.degree)
                    .saturating_mul(backtracking.weight)
                    > MAX_BACKTRACKING_WORK
                {
                    return Err(RegexBudgetExceeded);
                }
                backtracking
                    .regex
                    .is_match(haystack)
                    .map_err(|_| RegexBudgetExceeded)
            }
        }
    }
}

/// The `regex` crate engine a pattern would have without the engine-free routes: the reference those routes'
/// property tests and the regex fuzz target compare with. `None` when the pattern does not parse, needs the
/// backtracking engine, or does not build.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn reference_engine(pattern: &str) -> Option<regex::bytes::Regex> {
    let node = parse::parse(pattern).ok()?;
    if node.needs_backtracking() {
        return None;
    }
    build_linear(&translate::translate(&node, Engine::Linear)).ok()
}

/// fancy-regex on the pattern's backtracking translation, with the matching budget's backtrack limit: for linear
/// patterns, the other engine and the other translation (classes as code points, not UTF-8 byte sequences), which
/// the regex fuzz target compares with the linear route. `None` when the pattern does not parse or build, or the
/// match runs out of budget.
#[cfg(feature = "fuzzing")]
pub(crate) fn backtracking_is_match(pattern: &str, haystack: &str) -> Option<bool> {
    let node = parse::parse(pattern).ok()?;
    let regex = fancy_regex::RegexBuilder::new(&translate::translate(&node, Engine::Backtracking))
        .backtrack_limit(BACKTRACK_LIMIT)
        .delegate_size_limit(SIZE_LIMIT)
        .build()
        .ok()?;
    regex.is_match(haystack).ok()
}

/// The `regex` crate engine for a linear translation: the byte engine, since classes are written as UTF-8 byte
/// sequences (Unicode mode stays on for the rest: a `\x{E9}` literal is the code point's UTF-8).
fn build_linear(text: &str) -> Result<regex::bytes::Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(text)
        .size_limit(SIZE_LIMIT)
        .build()
}

/// The most nested a deferred pattern may be (the `regex` crate refuses nesting deeper than 250, and the
/// translation adds a group around each repetition and alternation).
const MAX_DEFERRED_DEPTH: u32 = 32;

/// The largest deferred pattern, in [`build_weight`] units. The densest atoms we measured (literals, `.`, negated
/// classes and escapes, repeated up to 100 times) cost the `regex` crate at most 27 bytes of [`SIZE_LIMIT`] per
/// unit, so this many units stay under a fifth of the limit.
const MAX_DEFERRED_WEIGHT: u64 = 65_536;

/// Whether the linear translation of a pattern is sure to build, so building it can wait for the first match: the
/// only ways it can fail are a `\p{...}` name the engine does not know, nesting deeper than the engine allows, and
/// an automaton larger than [`SIZE_LIMIT`]. Word boundaries are excluded as well, to keep the rule simple.
fn is_sure_to_build(node: &ast::Node) -> bool {
    build_weight(node, 0).is_some_and(|weight| weight <= MAX_DEFERRED_WEIGHT)
}

/// An upper estimate of a node's automaton size (`None` when it must be built at once): each code point or class
/// counts for its UTF-8 ranges, each counted repetition for its copies.
fn build_weight(node: &ast::Node, depth: u32) -> Option<u64> {
    use ast::{ClassEscape, ClassItem, Node};
    if depth > MAX_DEFERRED_DEPTH {
        return None;
    }
    let weight = match node {
        Node::Empty | Node::Start | Node::End => 1,
        Node::Literal(_) => 4,
        Node::Dot | Node::LoneSurrogate => 64,
        Node::Class(class) => {
            let mut weight: u64 = 64;
            for item in &class.items {
                weight += match item {
                    ClassItem::Range(..) => 16,
                    ClassItem::Escape(ClassEscape::Property { .. }) => return None,
                    ClassItem::Escape(_) => 64,
                };
            }
            weight
        }
        Node::WordBoundary { .. } | Node::Look { .. } | Node::Backref(_) => return None,
        Node::Group { node, .. } | Node::NonCapture(node) => 2 + build_weight(node, depth + 1)?,
        Node::Repeat { node, min, max, .. } => {
            let copies = u64::from(max.unwrap_or(*min)) + 1;
            2 + build_weight(node, depth + 1)?.checked_mul(copies)?
        }
        Node::Concat(nodes) | Node::Alt(nodes) => {
            let mut weight: u64 = 2;
            for node in nodes {
                weight = weight.checked_add(build_weight(node, depth + 1)?)?;
            }
            weight
        }
    };
    (weight <= MAX_DEFERRED_WEIGHT).then_some(weight)
}

/// Whether `pattern` is a valid ECMA-262 pattern (`format: regex`): it parses, and every `\p{...}` names a
/// property. Engine limits (size, lookbehind forms) do not make a pattern invalid here. Patterns of plain syntax
/// are answered without building a tree (see [`plain`]).
pub(crate) fn is_valid_pattern(pattern: &str) -> bool {
    plain::plainly_valid(pattern) || parses_with_properties(pattern)
}

/// [`is_valid_pattern`] by the parser alone.
fn parses_with_properties(pattern: &str) -> bool {
    parse::parse(pattern).is_ok_and(|node| properties_exist(&node))
}

fn properties_exist(node: &ast::Node) -> bool {
    use ast::{ClassEscape, ClassItem, Node};
    match node {
        Node::Class(class) => class.items.iter().all(|item| match item {
            ClassItem::Escape(ClassEscape::Property { name, .. }) => {
                regex::Regex::new(&format!(r"\p{{{name}}}")).is_ok()
            }
            _ => true,
        }),
        Node::Group { node, .. }
        | Node::NonCapture(node)
        | Node::Look { node, .. }
        | Node::Repeat { node, .. } => properties_exist(node),
        Node::Concat(nodes) | Node::Alt(nodes) => nodes.iter().all(properties_exist),
        _ => true,
    }
}

/// The last line of a `regex` crate error (the earlier lines quote the translated pattern, not the user's).
fn engine_message(error: &str) -> String {
    let last = error
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("invalid pattern");
    last.trim().trim_start_matches("error: ").to_owned()
}

#[cfg(test)]
#[path = "ecma_regex/tests.rs"]
mod tests;
