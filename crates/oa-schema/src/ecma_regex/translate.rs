//! Writes a parsed ECMA-262 pattern in the syntax of the `regex` crate (or of fancy-regex, for backtracking
//! patterns) so that it means what ECMA-262 says: ASCII `\d \w \b`, ECMA's `\s`, `.` not matching line
//! terminators, `$` only at the very end, and every literal spelled as a code point escape.

use super::ast::{Class, ClassEscape, ClassItem, Node};
use super::utf8;
use std::fmt::Write;

/// Which engine the text is for: they differ in how an ASCII word boundary can be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Engine {
    /// The `regex` crate's byte engine: linear time, no lookaround or backreferences; classes are written as
    /// UTF-8 byte sequences.
    Linear,
    /// fancy-regex: backtracking, for lookaround and backreferences.
    Backtracking,
}

/// ECMA-262 WhiteSpace and LineTerminator (the `\s` set), as class contents.
const SPACE: &str = r"\t\n\x{0B}\x{0C}\r\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// ECMA-262 word characters (`\w`), as class contents.
const WORD: &str = "0-9A-Za-z_";
/// ECMA-262 LineTerminator, as class contents (what `.` does not match).
const LINE_TERMINATOR: &str = r"\n\r\x{2028}\x{2029}";

/// A class that matches nothing.
const EMPTY_CLASS: &str = r"[^\x{0}-\x{10FFFF}]";

/// The pattern text for `engine`.
pub(super) fn translate(node: &Node, engine: Engine) -> String {
    let mut out = String::new();
    write_node(node, engine, &mut out);
    out
}

fn write_node(node: &Node, engine: Engine, out: &mut String) {
    match node {
        Node::Empty => {}
        Node::Literal(c) => write_char(u32::from(*c), out),
        // Nothing in a Rust string is a lone surrogate: an empty class never matches.
        Node::LoneSurrogate => out.push_str(EMPTY_CLASS),
        // The linear engine gets classes as UTF-8 byte sequences (see `utf8`): it runs on bytes.
        Node::Dot if engine == Engine::Linear => {
            utf8::write_byte_alternation(&utf8::dot_ranges(), out);
        }
        Node::Dot => {
            let _ = write!(out, "[^{LINE_TERMINATOR}]");
        }
        // A class of ASCII code points alone is one byte state either way: kept in the shorter syntax.
        Node::Class(class) if engine == Engine::Linear => match utf8::class_ranges(class) {
            Some(ranges) if ranges.last().is_some_and(|(_, high)| *high > 0x7F) => {
                if !utf8::write_byte_alternation(&ranges, out) {
                    out.push_str(EMPTY_CLASS);
                }
            }
            _ => write_class(class, out),
        },
        Node::Class(class) => write_class(class, out),
        Node::Start => out.push('^'),
        Node::End => out.push('$'),
        Node::WordBoundary { negated } => match (engine, negated) {
            (Engine::Linear, false) => out.push_str(r"(?-u:\b)"),
            (Engine::Linear, true) => out.push_str(r"(?-u:\B)"),
            // fancy-regex has no ASCII-only `\b`; spell it with lookaround.
            (Engine::Backtracking, false) => {
                let _ = write!(out, "(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))");
            }
            (Engine::Backtracking, true) => {
                let _ = write!(out, "(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))");
            }
        },
        Node::Group { node, .. } => {
            out.push('(');
            write_node(node, engine, out);
            out.push(')');
        }
        Node::NonCapture(node) => write_wrapped(node, engine, out),
        Node::Look {
            behind,
            negative,
            node,
        } => {
            out.push_str(match (behind, negative) {
                (false, false) => "(?=",
                (false, true) => "(?!",
                (true, false) => "(?<=",
                (true, true) => "(?<!",
            });
            write_node(node, engine, out);
            out.push(')');
        }
        Node::Backref(index) => {
            let _ = write!(out, r"(?:\k<{index}>)");
        }
        Node::Repeat {
            node,
            min,
            max,
            greedy,
        } => {
            write_wrapped(node, engine, out);
            match (min, max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (min, None) => {
                    let _ = write!(out, "{{{min},}}");
                }
                (min, Some(max)) if min == max => {
                    let _ = write!(out, "{{{min}}}");
                }
                (min, Some(max)) => {
                    let _ = write!(out, "{{{min},{max}}}");
                }
            }
            if !greedy {
                out.push('?');
            }
        }
        Node::Concat(nodes) => {
            for node in nodes {
                write_node(node, engine, out);
            }
        }
        Node::Alt(nodes) => {
            out.push_str("(?:");
            for (idx, node) in nodes.iter().enumerate() {
                if idx > 0 {
                    out.push('|');
                }
                write_node(node, engine, out);
            }
            out.push(')');
        }
    }
}

fn write_wrapped(node: &Node, engine: Engine, out: &mut String) {
    out.push_str("(?:");
    write_node(node, engine, out);
    out.push(')');
}

/// A code point, escaped unless it is an ASCII letter or digit (which mean themselves in every position).
fn write_char(code: u32, out: &mut String) {
    match char::from_u32(code) {
        Some(c) if c.is_ascii_alphanumeric() => out.push(c),
        _ => {
            let _ = write!(out, r"\x{{{code:X}}}");
        }
    }
}

fn write_class(class: &Class, out: &mut String) {
    let mut body = String::new();
    for item in &class.items {
        match item {
            ClassItem::Range(low, high) => write_range(*low, *high, &mut body),
            ClassItem::Escape(escape) => write_class_escape(escape, &mut body),
        }
    }
    match (class.negated, body.is_empty()) {
        // `[]` and a class of lone surrogates match nothing; `[^]` matches any code point.
        (false, true) => out.push_str(EMPTY_CLASS),
        (true, true) => out.push_str(r"[\x{0}-\x{10FFFF}]"),
        (negated, false) => {
            out.push('[');
            if negated {
                out.push('^');
            }
            out.push_str(&body);
            out.push(']');
        }
    }
}

/// A range without its surrogate code points (no Rust string holds them).
fn write_range(low: u32, high: u32, out: &mut String) {
    const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;
    let mut pieces = Vec::with_capacity(2);
    if low < *SURROGATES.start() {
        pieces.push((low, high.min(SURROGATES.start() - 1)));
    }
    if high > *SURROGATES.end() {
        pieces.push((low.max(SURROGATES.end() + 1), high));
    }
    for (low, high) in pieces {
        write_char(low, out);
        if high != low {
            out.push('-');
            write_char(high, out);
        }
    }
}

fn write_class_escape(escape: &ClassEscape, out: &mut String) {
    let (negated, contents) = match escape {
        ClassEscape::Digit { negated } => (*negated, "0-9"),
        ClassEscape::Word { negated } => (*negated, WORD),
        ClassEscape::Space { negated } => (*negated, SPACE),
        ClassEscape::Property { negated, name } => {
            let _ = write!(out, r"\{}{{{name}}}", if *negated { 'P' } else { 'p' });
            return;
        }
    };
    // A nested class keeps a negated escape correct inside an outer class: `[\Da]` is `[[^0-9]a]`.
    out.push('[');
    if negated {
        out.push('^');
    }
    out.push_str(contents);
    out.push(']');
}
