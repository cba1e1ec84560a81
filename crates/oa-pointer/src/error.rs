//! The errors of parsing a pointer and of resolving one against a document.

use std::fmt;

use crate::JsonPointer;

/// Why a string is not a JSON Pointer, and the byte offset in that string where parsing failed.
///
/// Offsets always index the string the caller passed in: for the URI-fragment form they count the `#` and the
/// percent escapes as written, not the decoded bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A non-empty pointer (after the `#` of a fragment) must start with `/`.
    #[error("expected '/' at byte {offset}")]
    MissingLeadingSlash {
        /// Where the `/` was expected: 0 in the plain form, 1 in the fragment form.
        offset: usize,
    },
    /// The URI-fragment form must start with `#`.
    #[error("expected '#' at byte {offset}")]
    MissingHash {
        /// Always 0: the first byte of the input.
        offset: usize,
    },
    /// A `~` was not followed by `0` or `1` (RFC 6901 §3 allows only `~0` and `~1`).
    #[error("'~' not followed by '0' or '1' at byte {offset}")]
    InvalidTildeEscape {
        /// The offset of the offending `~` (or of the `%7E` that decoded to it).
        offset: usize,
    },
    /// A `%` was not followed by two hexadecimal digits.
    #[error("invalid percent escape at byte {offset}")]
    InvalidPercentEscape {
        /// The offset of the offending `%`.
        offset: usize,
    },
    /// The percent-decoded bytes are not UTF-8.
    #[error("percent-decoded bytes are not UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// The offset where the first invalid UTF-8 sequence begins.
        offset: usize,
    },
}

impl ParseError {
    /// The byte offset in the input where parsing failed.
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// let error = JsonPointer::parse("/a~2").unwrap_err();
    /// assert_eq!(error.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        match self {
            Self::MissingLeadingSlash { offset }
            | Self::MissingHash { offset }
            | Self::InvalidTildeEscape { offset }
            | Self::InvalidPercentEscape { offset }
            | Self::InvalidUtf8 { offset } => *offset,
        }
    }

    /// The same error moved to another offset (used to map decoded offsets back to the fragment as written).
    pub(crate) fn with_offset(self, offset: usize) -> Self {
        match self {
            Self::MissingLeadingSlash { .. } => Self::MissingLeadingSlash { offset },
            Self::MissingHash { .. } => Self::MissingHash { offset },
            Self::InvalidTildeEscape { .. } => Self::InvalidTildeEscape { offset },
            Self::InvalidPercentEscape { .. } => Self::InvalidPercentEscape { offset },
            Self::InvalidUtf8 { .. } => Self::InvalidUtf8 { offset },
        }
    }
}

/// Why a pointer does not name a value in a document.
///
/// Every variant carries `prefix`, the longest prefix of the pointer that does name a value (the container the
/// failing token was looked up in), and the facts needed to explain the failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The object at `prefix` has no member named `key`.
    #[error("the object at {} has no member {key:?}", Place(.prefix))]
    MissingKey {
        /// The longest prefix that exists.
        prefix: JsonPointer,
        /// The member name that was looked up.
        key: String,
    },
    /// The token is a well-formed array index, but the array at `prefix` is not that long.
    #[error("index {token} is out of bounds for the array of length {len} at {}", Place(.prefix))]
    IndexOutOfBounds {
        /// The longest prefix that exists.
        prefix: JsonPointer,
        /// The index as written (it may exceed `usize`).
        token: String,
        /// The length of the array.
        len: usize,
    },
    /// The token is not an array index under RFC 6901 §4 (digits only, no leading zeros).
    #[error("{token:?} is not an array index, for the array at {}", Place(.prefix))]
    InvalidIndex {
        /// The longest prefix that exists.
        prefix: JsonPointer,
        /// The token as written.
        token: String,
    },
    /// The token `-` names the element after the last one, which never exists (RFC 6901 §4).
    #[error("\"-\" names the element after the last of the array at {}, which does not exist", Place(.prefix))]
    PastTheEnd {
        /// The longest prefix that exists.
        prefix: JsonPointer,
        /// The length of the array.
        len: usize,
    },
    /// The value at `prefix` is a scalar, so no token can descend into it.
    #[error("the value at {} is a {kind}, which has no member {token:?}", Place(.prefix))]
    NotAContainer {
        /// The longest prefix that exists.
        prefix: JsonPointer,
        /// The token that could not be looked up.
        token: String,
        /// What the value at `prefix` is.
        kind: ScalarKind,
    },
}

impl ResolveError {
    /// The longest prefix of the pointer that names a value in the document.
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// # use serde_json::json;
    /// let doc = json!({"a": {"b": 1}});
    /// let error = JsonPointer::parse("/a/c/d")?.resolve(&doc).unwrap_err();
    /// assert_eq!(error.prefix().to_string(), "/a");
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn prefix(&self) -> &JsonPointer {
        match self {
            Self::MissingKey { prefix, .. }
            | Self::IndexOutOfBounds { prefix, .. }
            | Self::InvalidIndex { prefix, .. }
            | Self::PastTheEnd { prefix, .. }
            | Self::NotAContainer { prefix, .. } => prefix,
        }
    }

    /// The token that failed to resolve below [`prefix`](Self::prefix).
    pub fn token(&self) -> &str {
        match self {
            Self::MissingKey { key: token, .. }
            | Self::IndexOutOfBounds { token, .. }
            | Self::InvalidIndex { token, .. }
            | Self::NotAContainer { token, .. } => token,
            Self::PastTheEnd { .. } => "-",
        }
    }
}

/// The kind of a JSON value that has no children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
}

impl fmt::Display for ScalarKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Null => "null",
            Self::Boolean => "boolean",
            Self::Number => "number",
            Self::String => "string",
        })
    }
}

/// Shows a pointer inside a message: the plain form in quotes, or "the root" for the whole document.
struct Place<'a>(&'a JsonPointer);

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_root() {
            f.write_str("the root")
        } else {
            write!(f, "\"{}\"", self.0)
        }
    }
}
