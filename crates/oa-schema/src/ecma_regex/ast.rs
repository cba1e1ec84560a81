//! The parsed form of an ECMA-262 pattern: what the parser produces and the translator consumes.

/// One node of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Node {
    /// Matches the empty string.
    Empty,
    /// One code point (a `\uD83D\uDC32` surrogate pair is already combined).
    Literal(char),
    /// A lone surrogate escape (`\uD800`): no Rust string holds one, so it never matches.
    LoneSurrogate,
    /// `.` without the `s` flag: any code point but a line terminator.
    Dot,
    /// `[...]`.
    Class(Class),
    /// `^` (no `m` flag: start of input).
    Start,
    /// `$` (no `m` flag: end of input, not before a final newline).
    End,
    /// `\b` (`negated: false`) or `\B`, over ECMA's ASCII word characters.
    WordBoundary { negated: bool },
    /// A capturing group, numbered from 1 in order of its opening parenthesis.
    Group { index: usize, node: Box<Node> },
    /// `(?:...)`.
    NonCapture(Box<Node>),
    /// `(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`.
    Look {
        behind: bool,
        negative: bool,
        node: Box<Node>,
    },
    /// A backreference to group `index` (resolved from `\N` or `\k<name>`).
    Backref(usize),
    /// A quantified atom.
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        greedy: bool,
    },
    /// Terms in sequence.
    Concat(Vec<Node>),
    /// Alternatives.
    Alt(Vec<Node>),
}

/// A character class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Class {
    /// `[^...]`.
    pub(super) negated: bool,
    /// The members; empty for `[]` (matches nothing) and `[^]` (matches anything).
    pub(super) items: Vec<ClassItem>,
}

/// One member of a character class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ClassItem {
    /// A code point range, inclusive; a single code point is `Range(c, c)`. May include surrogate code points,
    /// which the translator drops.
    Range(u32, u32),
    /// A class escape such as `\d` or `\P{Letter}`.
    Escape(ClassEscape),
}

/// `\d \D \w \W \s \S \p{..} \P{..}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ClassEscape {
    /// `\d` or `\D`: ASCII digits.
    Digit { negated: bool },
    /// `\w` or `\W`: ASCII letters, digits and `_`.
    Word { negated: bool },
    /// `\s` or `\S`: ECMA WhiteSpace and LineTerminator.
    Space { negated: bool },
    /// `\p{...}` or `\P{...}` with the text between the braces.
    Property { negated: bool, name: String },
}

impl Node {
    /// Whether the pattern needs a backtracking engine (lookaround or backreferences).
    pub(super) fn needs_backtracking(&self) -> bool {
        match self {
            Self::Look { .. } | Self::Backref(_) => true,
            Self::Group { node, .. } | Self::NonCapture(node) | Self::Repeat { node, .. } => {
                node.needs_backtracking()
            }
            Self::Concat(nodes) | Self::Alt(nodes) => nodes.iter().any(Self::needs_backtracking),
            _ => false,
        }
    }
}

impl Node {
    /// The same pattern for the only question asked of it, whether it matches anywhere: terms at either end that
    /// may repeat zero times (`[\w\W]*` after a prefix, `.*` before a word) are dropped, since a match can always
    /// start after or end before them. For linear patterns only (a backreference could need a group among them).
    /// It makes smaller automata: `^(?:https?:|\?)[\w\W]*` no longer holds every code point.
    pub(super) fn without_optional_ends(self) -> Node {
        let Self::Concat(mut nodes) = self else {
            return self;
        };
        let optional = |node: &Node| matches!(node, Self::Repeat { min: 0, .. });
        while nodes.len() > 1 && nodes.last().is_some_and(optional) {
            nodes.pop();
        }
        let n_leading = nodes.iter().take_while(|node| optional(node)).count();
        nodes.drain(..n_leading.min(nodes.len() - 1));
        match <[Node; 1]>::try_from(nodes) {
            Ok([node]) => node,
            Err(nodes) => Self::Concat(nodes),
        }
    }

    /// The degree of the polynomial that bounds a backtracking match's work in the string's length: one for trying
    /// every start position, plus, at the deepest lookaround or backreference, one for each scan it makes and one
    /// for every enclosing repetition or lookaround that can run it again at each position. 0 when the pattern has
    /// neither (it then runs on the linear engine).
    pub(super) fn work_degree(&self) -> u32 {
        self.degree_below(0)
    }

    fn degree_below(&self, n_enclosing: u32) -> u32 {
        match self {
            Self::Look { node, .. } => (n_enclosing + 2).max(node.degree_below(n_enclosing + 1)),
            Self::Backref(_) => n_enclosing + 2,
            Self::Repeat { node, max, .. } => {
                let repeats = max.is_none_or(|max| max > 1);
                node.degree_below(n_enclosing + u32::from(repeats))
            }
            Self::Group { node, .. } | Self::NonCapture(node) => node.degree_below(n_enclosing),
            Self::Concat(nodes) | Self::Alt(nodes) => nodes
                .iter()
                .map(|node| node.degree_below(n_enclosing))
                .max()
                .unwrap_or(0),
            _ => 0,
        }
    }
}
