//! `parse_json`: strict RFC 8259 decoding of model output, with a typed error naming line and column.
//!
//! What RFC 8259 rejects is rejected (comments, trailing commas, single quotes, `NaN`, leading zeros, control
//! characters in strings, trailing text, a byte-order mark); a comment and a byte-order mark are named as such, with
//! what to do. Duplicate member names are legal JSON, so they are
//! reported only when asked for. Nesting deeper than serde_json's limit of 128 levels is refused as well.

use crate::strict::{REPEAT_PREFIX, Walk};
use serde::de::DeserializeSeed;
use serde_json::Value;

/// serde_json's words for errors inside a string (its `ErrorCode`s as they print), where a `/` is text.
const IN_A_STRING: [&str; 6] = [
    "EOF while parsing a string",
    "invalid escape",
    "invalid unicode code point",
    "control character (\\u0000-\\u001F) found while parsing a string",
    "unexpected end of hex escape",
    "lone leading surrogate in hex escape",
];

/// Options for [`parse_json_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions {
    reject_duplicate_keys: bool,
}

impl ParseOptions {
    /// Report an object with two members of the same name as malformed (default `false`: RFC 8259 allows them,
    /// and the last one wins).
    #[must_use]
    pub fn reject_duplicate_keys(mut self, reject: bool) -> Self {
        self.reject_duplicate_keys = reject;
        self
    }
}

/// Why text is not well-formed JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MalformedKind {
    /// Not JSON syntax (RFC 8259).
    Syntax,
    /// The text ended inside a value.
    Eof,
    /// An object has two members of the same name (only with [`ParseOptions::reject_duplicate_keys`]).
    DuplicateKey,
    /// Nesting deeper than the decoder's limit (128).
    TooDeep,
    /// A `//` or `/* */` comment, which JSON does not have (a JSONC file such as `tsconfig.json`).
    Comment,
    /// The text starts with a byte-order mark (U+FEFF), which JSON text must not (RFC 8259 §8.1).
    ByteOrderMark,
}

/// Text that is not well-formed JSON: what made it malformed, and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed JSON {}: {reason}", self.position())]
pub struct MalformedJson {
    line: usize,
    column: usize,
    reason: String,
    kind: MalformedKind,
}

impl MalformedJson {
    /// The 1-based line of the problem.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column of the problem (0 when the decoder could not tell).
    pub fn column(&self) -> usize {
        self.column
    }

    /// What made the text malformed, without its position (`trailing comma`).
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The kind of problem.
    pub fn kind(&self) -> MalformedKind {
        self.kind
    }

    /// Where, in words: `at line 2, column 7`, or `at the end of line 1` when the decoder could not tell the column
    /// (it ran out of text before the first character of a line).
    fn position(&self) -> String {
        if self.column == 0 {
            format!("at the end of line {}", self.line.max(1))
        } else {
            format!("at line {}, column {}", self.line, self.column)
        }
    }

    fn from_serde(err: &serde_json::Error) -> Self {
        let text = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        let reason = plain_reason(text.strip_suffix(&suffix).unwrap_or(&text));
        let kind = if reason.starts_with(REPEAT_PREFIX) {
            MalformedKind::DuplicateKey
        } else if reason.contains("recursion limit") {
            MalformedKind::TooDeep
        } else if err.is_eof() {
            MalformedKind::Eof
        } else {
            MalformedKind::Syntax
        };
        Self {
            line: err.line(),
            column: err.column(),
            reason,
            kind,
        }
    }

    /// The error for `text`, saying what to do where the decoder's words would not: a comment or a byte-order mark
    /// where the text went wrong is named as such.
    fn of(err: &serde_json::Error, text: &str) -> Self {
        let malformed = Self::from_serde(err);
        if text.starts_with('\u{feff}') {
            return Self::byte_order_mark();
        }
        let at = text
            .split('\n')
            .nth(malformed.line.saturating_sub(1))
            .and_then(|line| line.get(malformed.column.saturating_sub(1)..));
        malformed.naming_a_comment(at.map(str::as_bytes))
    }

    /// The error for text that starts with a byte-order mark, whatever went wrong after it.
    pub(crate) fn byte_order_mark() -> Self {
        Self {
            line: 1,
            column: 1,
            reason: "the text starts with a byte-order mark (U+FEFF), which JSON text must not: save it without one"
                .to_owned(),
            kind: MalformedKind::ByteOrderMark,
        }
    }

    /// This error, named a comment when `rest` (the text from where it went wrong, as `parse_json` looks: the
    /// column's byte, or the line's start at column 0) opens one.
    /// Not inside a string: after an escape that needs more (a leading surrogate's missing `\u`), `//` is text,
    /// and the decoder's words stand (the incremental route reads a string whole and names it so too).
    pub(crate) fn naming_a_comment(mut self, rest: Option<&[u8]>) -> Self {
        if IN_A_STRING.contains(&self.reason.as_str()) {
            return self;
        }
        if let Some(comment) = rest.and_then(|rest| {
            ["//", "/*"]
                .into_iter()
                .find(|open| rest.starts_with(open.as_bytes()))
        }) {
            self.reason = format!(
                "a comment (`{comment}`): JSON has no comments, remove them (a JSONC file such as tsconfig.json must \
                 be stripped of its comments first)"
            );
            self.kind = MalformedKind::Comment;
        }
        self
    }

    /// serde_json's error, as `parse_json` names it, moved to `line` and `column` (the incremental parser reads
    /// a token alone, then places the error in the whole text).
    pub(crate) fn from_serde_at(err: &serde_json::Error, line: usize, column: usize) -> Self {
        Self {
            line,
            column,
            ..Self::from_serde(err)
        }
    }

    /// An error in serde_json's words (`reason` as its `ErrorCode` prints), as `parse_json` names it.
    pub(crate) fn from_reason(line: usize, column: usize, reason: &str, eof: bool) -> Self {
        let kind = if reason.starts_with(REPEAT_PREFIX) {
            MalformedKind::DuplicateKey
        } else if eof {
            MalformedKind::Eof
        } else {
            MalformedKind::Syntax
        };
        Self {
            line,
            column,
            reason: plain_reason(reason),
            kind,
        }
    }
}

/// serde_json's reason in plain words where its own are a parser's (`expected ident`, `EOF while parsing a list`).
fn plain_reason(reason: &str) -> String {
    let plain = match reason {
        "expected ident" => "expected true, false or null",
        "expected value" => "expected a JSON value",
        "EOF while parsing a value" => "the text ends where a value should begin",
        "EOF while parsing a list" => "the text ends inside an array",
        "EOF while parsing an object" => "the text ends inside an object",
        "EOF while parsing a string" => "the text ends inside a string",
        "trailing characters" => "unexpected text after the JSON value",
        "key must be a string" => "an object member's name must be a string",
        other => return other.to_owned(),
    };
    plain.to_owned()
}

/// Decodes `text` strictly as RFC 8259 JSON; duplicate member names are allowed (the last wins).
///
/// # Errors
/// [`MalformedJson`] with line, column and reason.
///
/// ```
/// let err = oa_schema::parse_json("{\"a\": 1,}").unwrap_err();
/// assert_eq!((err.line(), err.column()), (1, 9));
/// assert_eq!(err.reason(), "trailing comma");
/// ```
pub fn parse_json(text: &str) -> Result<Value, MalformedJson> {
    parse_json_with(text, ParseOptions::default())
}

/// Decodes `text` strictly as RFC 8259 JSON, with options.
///
/// # Errors
/// [`MalformedJson`] with line, column and reason.
pub fn parse_json_with(text: &str, options: ParseOptions) -> Result<Value, MalformedJson> {
    let value: Value = serde_json::from_str(text).map_err(|err| MalformedJson::of(&err, text))?;
    if options.reject_duplicate_keys {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        Walk::new()
            .refusing_repeats()
            .deserialize(&mut deserializer)
            .and_then(|()| deserializer.end())
            .map_err(|err| MalformedJson::from_serde(&err))?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malformed(text: &str) -> MalformedJson {
        parse_json(text).unwrap_err()
    }

    #[test]
    fn rejects_what_rfc_8259_rejects() {
        for text in [
            "{'a': 1}",
            "[1, 2,]",
            "{\"a\": 1,}",
            "// c\n1",
            "NaN",
            "01",
            "1.",
            "\"a\u{1}b\"",
            "[1] x",
            "\u{feff}1",
            "",
            "{\"a\" 1}",
            "tru",
        ] {
            assert!(parse_json(text).is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn accepts_well_formed_json_and_big_numbers() {
        let value = parse_json(
            " {\"a\": [1, 2.5e3, null, true, \"\\u00e9\"], \"b\": 100000000000000000000000000001}\n",
        )
        .unwrap();
        assert_eq!(value["a"][4], "é");
        // Kept as written with `arbitrary_precision`; else the nearest `f64` (the README's "Numbers").
        let expected = if cfg!(feature = "arbitrary_precision") {
            "100000000000000000000000000001"
        } else {
            "1e+29"
        };
        assert_eq!(value["b"].to_string(), expected);
    }

    #[test]
    fn reports_line_column_and_reason() {
        let err = malformed("{\n  \"a\": 1,\n}");
        assert_eq!(
            (err.line(), err.column(), err.reason(), err.kind()),
            (3, 1, "trailing comma", MalformedKind::Syntax)
        );
        assert_eq!(
            err.to_string(),
            "malformed JSON at line 3, column 1: trailing comma"
        );
        assert_eq!(malformed("[1, 2").kind(), MalformedKind::Eof);
        assert_eq!(malformed(&"[".repeat(200)).kind(), MalformedKind::TooDeep);
    }

    /// A comment anywhere the decoder stops (a member's name, a value, after the document) and a byte-order mark
    /// are named, with what to do; a `/` that opens no comment is not.
    #[test]
    fn a_comment_and_a_byte_order_mark_say_what_to_do() {
        for (text, line, column, open) in [
            ("{\n  // compiler options\n  \"a\": 1}", 2, 3, "//"),
            ("{\"a\": /* one */ 1}", 1, 7, "/*"),
            ("{\"a\": 1} // done", 1, 10, "//"),
            ("{\"é\": 1, // c\n}", 1, 11, "//"),
        ] {
            let err = malformed(text);
            assert_eq!(
                (err.line(), err.column(), err.kind()),
                (line, column, MalformedKind::Comment),
                "{text}"
            );
            assert_eq!(
                err.reason(),
                format!(
                    "a comment (`{open}`): JSON has no comments, remove them (a JSONC file such as tsconfig.json \
                     must be stripped of its comments first)"
                )
            );
        }
        assert_eq!(malformed("{\"a\": 1 / 2}").kind(), MalformedKind::Syntax);
        let bom = malformed("\u{feff}{\"a\": 1}");
        assert_eq!(
            (bom.line(), bom.column(), bom.kind()),
            (1, 1, MalformedKind::ByteOrderMark)
        );
        assert_eq!(
            bom.to_string(),
            "malformed JSON at line 1, column 1: the text starts with a byte-order mark (U+FEFF), which JSON text \
             must not: save it without one"
        );
    }

    #[test]
    fn duplicate_keys_only_when_asked() {
        let text = "{\"a\": {\"b\": 1, \"b\": 2}}";
        assert_eq!(parse_json(text).unwrap()["a"]["b"], 2);
        let err = parse_json_with(text, ParseOptions::default().reject_duplicate_keys(true)).unwrap_err();
        assert_eq!(err.kind(), MalformedKind::DuplicateKey);
        assert!(err.reason().contains("\"b\""), "{err}");
        let numbers = "{\"a\": 1.5, \"b\": [100000000000000000000000001]}";
        assert!(parse_json_with(numbers, ParseOptions::default().reject_duplicate_keys(true)).is_ok());
    }
}
