//! A parser for ECMA-262 pattern syntax with the `u` flag, as JSON Schema prescribes, into [`Node`]s.
//!
//! Strictly the `u`-mode grammar, with deliberate leniencies that real-world schemas need, each taken from
//! ECMA-262's Annex B (the web-compatibility grammar without `u`): an escaped ASCII character that is neither a
//! letter nor a digit (`\-`, `\#`, `\@`, `\ ` ...) is that character everywhere; a lone `]`, `{` or `}` that
//! cannot start a quantifier is a literal; and in a class, a class escape next to `-` (`[\w-.]`) makes the `-` a
//! literal instead of a range. Escaped letters and digits stay reserved, so `\a`, `\e`, `\z` and `\A` are
//! errors, as ECMA-262 says. Inline flag groups (`(?i)`, `(?i:...)`), Python syntax (`(?P<n>...)`, `(?#...)`) and
//! anything else after `(?` are errors.

use super::RegexError;
use super::ast::{Class, ClassEscape, ClassItem, Node};
use std::collections::HashMap;

/// Nested groups deeper than this are rejected, so parsing and translation never recurse without bound.
const MAX_NESTING: usize = 200;

/// Parses an ECMA-262 pattern.
pub(super) fn parse(pattern: &str) -> Result<Node, RegexError> {
    let mut parser = Parser {
        chars: pattern.chars().collect(),
        pos: 0,
        n_groups: 0,
        names: HashMap::new(),
        named_refs: Vec::new(),
        max_backref: 0,
        depth: 0,
    };
    let mut node = parser.disjunction()?;
    if parser.pos < parser.chars.len() {
        // Only an unmatched `)` stops a top-level disjunction early.
        return Err(parser.error("unmatched ')'"));
    }
    if parser.max_backref > parser.n_groups {
        return Err(RegexError::new(format!(
            "backreference \\{} refers to a group that does not exist",
            parser.max_backref
        )));
    }
    if !parser.named_refs.is_empty() {
        resolve_named(&mut node, &parser.named_refs, &parser.names)?;
    }
    Ok(node)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    n_groups: usize,
    names: HashMap<String, usize>,
    /// Names used by `\k<name>`, checked once every group is known (references may come first).
    named_refs: Vec<String>,
    max_backref: usize,
    depth: usize,
}

/// A named backreference before resolution is a `Backref` whose index is a placeholder; see `resolve_named`.
const NAMED_REF_BASE: usize = usize::MAX / 2;

impl Parser {
    fn error(&self, what: &str) -> RegexError {
        RegexError::new(format!("{what} at offset {}", self.pos))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self) -> Result<Node, RegexError> {
        let mut alternatives = vec![self.alternative()?];
        while self.eat('|') {
            alternatives.push(self.alternative()?);
        }
        Ok(if alternatives.len() == 1 {
            alternatives.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alternatives)
        })
    }

    fn alternative(&mut self) -> Result<Node, RegexError> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            terms.push(self.term()?);
        }
        Ok(match terms.len() {
            0 => Node::Empty,
            1 => terms.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(terms),
        })
    }

    fn term(&mut self) -> Result<Node, RegexError> {
        let start = self.pos;
        let (atom, quantifiable) = self.atom()?;
        if let Some((min, max)) = self.quantifier()? {
            if !quantifiable {
                self.pos = start;
                return Err(self.error("nothing to repeat"));
            }
            if max.is_some_and(|max| max < min) {
                return Err(self.error("numbers out of order in {} quantifier"));
            }
            let greedy = !self.eat('?');
            return Ok(Node::Repeat {
                node: Box::new(atom),
                min,
                max,
                greedy,
            });
        }
        Ok(atom)
    }

    /// Parses a quantifier if one starts here. A `{` that is not a well-formed quantifier is left in place (it is
    /// then a literal, per Annex B).
    fn quantifier(&mut self) -> Result<Option<(u32, Option<u32>)>, RegexError> {
        let found = match self.peek() {
            Some('*') => Some((0, None)),
            Some('+') => Some((1, None)),
            Some('?') => Some((0, Some(1))),
            Some('{') => return Ok(self.braced_quantifier()),
            _ => None,
        };
        if found.is_some() {
            self.pos += 1;
        }
        Ok(found)
    }

    fn braced_quantifier(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.pos;
        self.pos += 1;
        let parsed = (|| {
            let min = self.decimal()?;
            if self.eat('}') {
                return Some((min, Some(min)));
            }
            if !self.eat(',') {
                return None;
            }
            if self.eat('}') {
                return Some((min, None));
            }
            let max = self.decimal()?;
            self.eat('}').then_some((min, Some(max)))
        })();
        if parsed.is_none() {
            self.pos = start;
        }
        parsed
    }

    /// A run of decimal digits, saturating at `u32::MAX` (the engine rejects such counts as too large).
    fn decimal(&mut self) -> Option<u32> {
        let start = self.pos;
        let mut value: u32 = 0;
        while let Some(digit) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(digit);
            self.pos += 1;
        }
        (self.pos > start).then_some(value)
    }

    /// Parses one atom or assertion; the flag says whether a quantifier may follow it.
    fn atom(&mut self) -> Result<(Node, bool), RegexError> {
        let Some(c) = self.peek() else {
            return Err(self.error("unexpected end of pattern"));
        };
        self.pos += 1;
        let atom = match c {
            '^' => return Ok((Node::Start, false)),
            '$' => return Ok((Node::End, false)),
            '.' => Node::Dot,
            '(' => return self.group(),
            '[' => Node::Class(self.class()?),
            '\\' => return self.atom_escape(),
            '*' | '+' | '?' => {
                self.pos -= 1;
                return Err(self.error("nothing to repeat"));
            }
            '{' => {
                self.pos -= 1;
                if self.braced_quantifier().is_some() {
                    return Err(self.error("nothing to repeat"));
                }
                self.pos += 1;
                Node::Literal('{')
            }
            other => Node::Literal(other),
        };
        Ok((atom, true))
    }

    fn group(&mut self) -> Result<(Node, bool), RegexError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error("groups nested too deeply"));
        }
        let result = self.group_body();
        self.depth -= 1;
        let (node, quantifiable) = result?;
        if !self.eat(')') {
            return Err(self.error("missing ')'"));
        }
        Ok((node, quantifiable))
    }

    fn group_body(&mut self) -> Result<(Node, bool), RegexError> {
        if !self.eat('?') {
            self.n_groups += 1;
            let index = self.n_groups;
            let node = self.disjunction()?;
            return Ok((
                Node::Group {
                    index,
                    node: Box::new(node),
                },
                true,
            ));
        }
        match (self.peek(), self.peek_at(1)) {
            (Some(':'), _) => {
                self.pos += 1;
                Ok((Node::NonCapture(Box::new(self.disjunction()?)), true))
            }
            (Some('='), _) | (Some('!'), _) => {
                let negative = self.peek() == Some('!');
                self.pos += 1;
                let node = self.disjunction()?;
                // In `u` mode no assertion, lookahead included, may be quantified.
                Ok((
                    Node::Look {
                        behind: false,
                        negative,
                        node: Box::new(node),
                    },
                    false,
                ))
            }
            (Some('<'), Some('=')) | (Some('<'), Some('!')) => {
                let negative = self.peek_at(1) == Some('!');
                self.pos += 2;
                let node = self.disjunction()?;
                Ok((
                    Node::Look {
                        behind: true,
                        negative,
                        node: Box::new(node),
                    },
                    false,
                ))
            }
            (Some('<'), _) => {
                self.pos += 1;
                let name = self.group_name()?;
                self.n_groups += 1;
                let index = self.n_groups;
                if self.names.insert(name, index).is_some() {
                    return Err(self.error("duplicate group name"));
                }
                let node = self.disjunction()?;
                Ok((
                    Node::Group {
                        index,
                        node: Box::new(node),
                    },
                    true,
                ))
            }
            _ => {
                Err(self.error("invalid group: ECMA-262 allows only (?:, (?=, (?!, (?<=, (?<! and (?<name>"))
            }
        }
    }

    /// Parses `name>` after `<`: an identifier (letters, digits, `_`, `$`, not starting with a digit).
    fn group_name(&mut self) -> Result<String, RegexError> {
        let mut name = String::new();
        loop {
            match self.peek() {
                Some('>') => {
                    self.pos += 1;
                    break;
                }
                Some(c)
                    if c == '_'
                        || c == '$'
                        || c.is_alphabetic()
                        || (!name.is_empty() && c.is_alphanumeric()) =>
                {
                    name.push(c);
                    self.pos += 1;
                }
                _ => return Err(self.error("invalid group name")),
            }
        }
        if name.is_empty() {
            return Err(self.error("empty group name"));
        }
        Ok(name)
    }

    fn atom_escape(&mut self) -> Result<(Node, bool), RegexError> {
        let Some(c) = self.peek() else {
            return Err(self.error("\\ at end of pattern"));
        };
        match c {
            'b' | 'B' => {
                self.pos += 1;
                Ok((Node::WordBoundary { negated: c == 'B' }, false))
            }
            '1'..='9' => {
                let index = self.decimal().map_or(usize::MAX, |n| n as usize);
                self.max_backref = self.max_backref.max(index);
                Ok((Node::Backref(index), true))
            }
            'k' => {
                self.pos += 1;
                if !self.eat('<') {
                    return Err(self.error("\\k must be followed by <name>"));
                }
                let name = self.group_name()?;
                self.named_refs.push(name);
                Ok((Node::Backref(NAMED_REF_BASE + self.named_refs.len() - 1), true))
            }
            _ => {
                if let Some(escape) = self.class_escape()? {
                    return Ok((
                        Node::Class(Class {
                            negated: false,
                            items: vec![ClassItem::Escape(escape)],
                        }),
                        true,
                    ));
                }
                let code = self.character_escape(false)?;
                Ok((literal_node(code), true))
            }
        }
    }

    /// `\d \D \w \W \s \S \p{..} \P{..}` after the backslash, or `None` (nothing consumed) for anything else.
    fn class_escape(&mut self) -> Result<Option<ClassEscape>, RegexError> {
        let Some(c) = self.peek() else { return Ok(None) };
        let escape = match c {
            'd' | 'D' => ClassEscape::Digit { negated: c == 'D' },
            'w' | 'W' => ClassEscape::Word { negated: c == 'W' },
            's' | 'S' => ClassEscape::Space { negated: c == 'S' },
            'p' | 'P' => {
                self.pos += 1;
                if !self.eat('{') {
                    return Err(self.error("\\p must be followed by {property}"));
                }
                let mut name = String::new();
                while let Some(n) = self.peek() {
                    if n == '}' {
                        break;
                    }
                    if !(n.is_ascii_alphanumeric() || n == '_' || n == '=') {
                        return Err(self.error("invalid character in property name"));
                    }
                    name.push(n);
                    self.pos += 1;
                }
                if !self.eat('}') || name.is_empty() {
                    return Err(self.error("unterminated property escape"));
                }
                return Ok(Some(ClassEscape::Property {
                    negated: c == 'P',
                    name,
                }));
            }
            _ => return Ok(None),
        };
        self.pos += 1;
        Ok(Some(escape))
    }

    /// A CharacterEscape after the backslash, as a code point (surrogates possible). `in_class` allows `\b`
    /// (backspace) and `\-`.
    fn character_escape(&mut self, in_class: bool) -> Result<u32, RegexError> {
        let Some(c) = self.peek() else {
            return Err(self.error("\\ at end of pattern"));
        };
        self.pos += 1;
        let code = match c {
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            'b' if in_class => 0x08,
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.pos += 1;
                    u32::from(letter) % 32
                }
                _ => return Err(self.error("\\c must be followed by an ASCII letter")),
            },
            '0' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    return Err(self.error("octal escapes are not allowed"));
                }
                0
            }
            'x' => self.hex_digits(2)?,
            'u' => self.unicode_escape()?,
            other if other.is_ascii() && !other.is_ascii_alphanumeric() => u32::from(other),
            other if other.is_ascii_alphanumeric() => {
                self.pos -= 1;
                return Err(self.error(&format!("invalid escape \\{other}")));
            }
            // A non-ASCII identity escape is invalid in `u` mode.
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape of a non-ASCII character"));
            }
        };
        Ok(code)
    }

    fn hex_digits(&mut self, count: usize) -> Result<u32, RegexError> {
        let mut value = 0;
        for _ in 0..count {
            let Some(digit) = self.peek().and_then(|c| c.to_digit(16)) else {
                return Err(self.error("invalid hexadecimal escape"));
            };
            value = value * 16 + digit;
            self.pos += 1;
        }
        Ok(value)
    }

    /// After `\u`: `{hex}` or four hex digits, joining a high surrogate with a following `\uLOW`.
    fn unicode_escape(&mut self) -> Result<u32, RegexError> {
        if self.eat('{') {
            let mut value: u32 = 0;
            let start = self.pos;
            while let Some(digit) = self.peek().and_then(|c| c.to_digit(16)) {
                value = value.saturating_mul(16).saturating_add(digit);
                self.pos += 1;
            }
            if self.pos == start || !self.eat('}') || value > 0x10FFFF {
                return Err(self.error("invalid \\u{...} escape"));
            }
            return Ok(value);
        }
        let high = self.hex_digits(4)?;
        if (0xD800..0xDC00).contains(&high) && self.peek() == Some('\\') && self.peek_at(1) == Some('u') {
            let save = self.pos;
            self.pos += 2;
            if let Ok(low) = self.hex_digits(4)
                && (0xDC00..0xE000).contains(&low)
            {
                return Ok(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
            }
            self.pos = save;
        }
        Ok(high)
    }

    /// After `[`.
    fn class(&mut self) -> Result<Class, RegexError> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error("missing ']'"));
            };
            if c == ']' {
                self.pos += 1;
                break;
            }
            let first = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|n| n != ']') {
                self.pos += 1;
                let second = self.class_atom()?;
                match (first, second) {
                    (ClassAtom::Code(low), ClassAtom::Code(high)) => {
                        if low > high {
                            return Err(self.error("range out of order in character class"));
                        }
                        items.push(ClassItem::Range(low, high));
                    }
                    // Annex B: a class escape at either end makes the `-` a literal (`[\w-.]` is `\w`, `-`, `.`).
                    (first, second) => {
                        for atom in [first, ClassAtom::Code(u32::from('-')), second] {
                            items.push(atom.into_item());
                        }
                    }
                }
            } else {
                items.push(first.into_item());
            }
        }
        Ok(Class { negated, items })
    }

    fn class_atom(&mut self) -> Result<ClassAtom, RegexError> {
        let Some(c) = self.peek() else {
            return Err(self.error("missing ']'"));
        };
        self.pos += 1;
        if c != '\\' {
            return Ok(ClassAtom::Code(u32::from(c)));
        }
        if let Some(escape) = self.class_escape()? {
            return Ok(ClassAtom::Escape(escape));
        }
        if self.peek().is_some_and(|d| d.is_ascii_digit() && d != '0') {
            return Err(self.error("backreference in character class"));
        }
        if self.peek() == Some('B') {
            return Err(self.error("\\B in character class"));
        }
        Ok(ClassAtom::Code(self.character_escape(true)?))
    }
}

enum ClassAtom {
    Code(u32),
    Escape(ClassEscape),
}

impl ClassAtom {
    fn into_item(self) -> ClassItem {
        match self {
            Self::Code(code) => ClassItem::Range(code, code),
            Self::Escape(escape) => ClassItem::Escape(escape),
        }
    }
}

fn literal_node(code: u32) -> Node {
    char::from_u32(code).map_or(Node::LoneSurrogate, Node::Literal)
}

/// Replaces the placeholders of `\k<name>` by group numbers. Recursion depth is bounded by `MAX_NESTING`.
fn resolve_named(node: &mut Node, refs: &[String], names: &HashMap<String, usize>) -> Result<(), RegexError> {
    match node {
        Node::Backref(index) if *index >= NAMED_REF_BASE => {
            let name = refs.get(*index - NAMED_REF_BASE).map_or("", String::as_str);
            match names.get(name) {
                Some(group) => *index = *group,
                None => {
                    return Err(RegexError::new(format!(
                        "backreference to unknown group name '{name}'"
                    )));
                }
            }
        }
        Node::Group { node, .. }
        | Node::NonCapture(node)
        | Node::Repeat { node, .. }
        | Node::Look { node, .. } => {
            resolve_named(node, refs, names)?;
        }
        Node::Concat(nodes) | Node::Alt(nodes) => {
            for node in nodes {
                resolve_named(node, refs, names)?;
            }
        }
        _ => {}
    }
    Ok(())
}
