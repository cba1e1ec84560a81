//! [`JsonPointer`]: an owned RFC 6901 pointer, parsed from and formatted to the plain and URI-fragment forms.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::escape::write_escaped;
use crate::{ParseError, fragment, order, parse};

/// An owned JSON Pointer: a sequence of decoded reference tokens naming one place in a JSON document.
///
/// Display and [`Serialize`] give the plain form (`/a~1b/0`; the empty string for the whole document);
/// [`to_fragment`](Self::to_fragment) gives the URI-fragment form (`#/a~1b/0`; `#` for the whole document).
/// Ordering is token by token: array indices numerically, other tokens by code point, a prefix first.
///
/// ```
/// use oa_pointer::JsonPointer;
///
/// let pointer = JsonPointer::parse("/a~1b/0")?;
/// assert_eq!(pointer.tokens().collect::<Vec<_>>(), ["a/b", "0"]);
/// assert_eq!(pointer.to_fragment(), "#/a~1b/0");
/// assert_eq!(JsonPointer::parse_fragment("#/a~1b/0")?, pointer);
/// # Ok::<(), oa_pointer::ParseError>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct JsonPointer {
    /// The decoded tokens, outermost first; empty for the whole document.
    tokens: Vec<String>,
}

impl JsonPointer {
    /// The pointer to the whole document (plain form `""`, fragment form `#`).
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses the plain form (RFC 6901 §3): the empty string, or `/`-separated tokens using `~0` for `~` and
    /// `~1` for `/`.
    ///
    /// # Errors
    ///
    /// [`ParseError::MissingLeadingSlash`] when a non-empty input does not start with `/`, and
    /// [`ParseError::InvalidTildeEscape`] when a `~` is not followed by `0` or `1`.
    ///
    /// ```
    /// # use oa_pointer::{JsonPointer, ParseError};
    /// assert_eq!(JsonPointer::parse("/m~0n")?.tokens().next(), Some("m~n"));
    /// assert_eq!(JsonPointer::parse("a"), Err(ParseError::MissingLeadingSlash { offset: 0 }));
    /// # Ok::<(), ParseError>(())
    /// ```
    pub fn parse(input: &str) -> Result<Self, ParseError> {
        parse::parse_plain(input).map(|tokens| Self { tokens })
    }

    /// Parses the URI-fragment form (RFC 6901 §6): `#` followed by the plain form, percent-decoded to UTF-8.
    ///
    /// Characters that RFC 3986 would have encoded are accepted literally when they appear unencoded.
    ///
    /// # Errors
    ///
    /// [`ParseError::MissingHash`], [`ParseError::InvalidPercentEscape`], [`ParseError::InvalidUtf8`], and the
    /// plain-form errors, each with the offset in `input` as written.
    ///
    /// ```
    /// # use oa_pointer::{JsonPointer, ParseError};
    /// assert_eq!(JsonPointer::parse_fragment("#/%C3%A9")?.tokens().next(), Some("é"));
    /// assert_eq!(JsonPointer::parse_fragment("#/%zz"), Err(ParseError::InvalidPercentEscape { offset: 2 }));
    /// # Ok::<(), ParseError>(())
    /// ```
    pub fn parse_fragment(input: &str) -> Result<Self, ParseError> {
        parse::parse_fragment(input).map(|tokens| Self { tokens })
    }

    /// Builds a pointer from decoded tokens (no escaping needed: any string is a valid token).
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// let pointer = JsonPointer::from_tokens(["a/b", "m~n"]);
    /// assert_eq!(pointer.to_string(), "/a~1b/m~0n");
    /// ```
    pub fn from_tokens<I>(tokens: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        Self {
            tokens: tokens.into_iter().map(Into::into).collect(),
        }
    }

    /// The URI-fragment form: `#`, then each token `~`-escaped and percent-encoded outside RFC 3986's fragment
    /// characters.
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// assert_eq!(JsonPointer::from_tokens(["first name", "é"]).to_fragment(), "#/first%20name/%C3%A9");
    /// assert_eq!(JsonPointer::root().to_fragment(), "#");
    /// ```
    pub fn to_fragment(&self) -> String {
        let mut out =
            String::with_capacity(1 + self.tokens.iter().map(|token| token.len() + 1).sum::<usize>());
        out.push('#');
        for token in &self.tokens {
            fragment::push_encoded_token(&mut out, token);
        }
        out
    }

    /// The decoded tokens, outermost first.
    pub fn tokens(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.tokens.iter().map(String::as_str)
    }

    /// The number of tokens (0 for the whole document).
    pub fn depth(&self) -> usize {
        self.tokens.len()
    }

    /// Whether this points at the whole document.
    pub fn is_root(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The last token, if any.
    pub fn last(&self) -> Option<&str> {
        self.tokens.last().map(String::as_str)
    }

    /// Appends a decoded token.
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// let mut pointer = JsonPointer::root();
    /// pointer.push("items");
    /// pointer.push_index(3);
    /// assert_eq!(pointer.to_string(), "/items/3");
    /// ```
    pub fn push(&mut self, token: impl Into<String>) {
        self.tokens.push(token.into());
    }

    /// Appends an array index as a token.
    pub fn push_index(&mut self, index: usize) {
        self.tokens.push(index.to_string());
    }

    /// Removes and returns the last token; `None` at the root.
    pub fn pop(&mut self) -> Option<String> {
        self.tokens.pop()
    }

    /// The pointer to the containing value; `None` at the root.
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// assert_eq!(JsonPointer::parse("/a/b")?.parent(), Some(JsonPointer::parse("/a")?));
    /// assert_eq!(JsonPointer::root().parent(), None);
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn parent(&self) -> Option<Self> {
        let (_, init) = self.tokens.split_last()?;
        Some(Self {
            tokens: init.to_vec(),
        })
    }

    /// Whether `prefix` names this place or one of its ancestors (token by token, not by string).
    ///
    /// ```
    /// # use oa_pointer::JsonPointer;
    /// let pointer = JsonPointer::parse("/ab/c")?;
    /// assert!(pointer.starts_with(&JsonPointer::parse("/ab")?));
    /// assert!(!pointer.starts_with(&JsonPointer::parse("/a")?));
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn starts_with(&self, prefix: &Self) -> bool {
        self.tokens.starts_with(&prefix.tokens)
    }

    /// The pointer made of the first `n_tokens` tokens (used to report the longest prefix that exists).
    pub(crate) fn prefix_of_len(&self, n_tokens: usize) -> Self {
        Self {
            tokens: self.tokens.iter().take(n_tokens).cloned().collect(),
        }
    }
}

impl fmt::Display for JsonPointer {
    /// Writes the plain form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for token in &self.tokens {
            f.write_str("/")?;
            write_escaped(f, token)?;
        }
        Ok(())
    }
}

impl fmt::Debug for JsonPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonPointer({:?})", self.to_string())
    }
}

impl FromStr for JsonPointer {
    type Err = ParseError;

    /// Parses the plain form, as [`JsonPointer::parse`].
    fn from_str(input: &str) -> Result<Self, ParseError> {
        Self::parse(input)
    }
}

impl PartialOrd for JsonPointer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JsonPointer {
    fn cmp(&self, other: &Self) -> Ordering {
        for (left, right) in self.tokens.iter().zip(&other.tokens) {
            match order::compare_tokens(left, right) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        self.tokens.len().cmp(&other.tokens.len())
    }
}

impl Serialize for JsonPointer {
    /// Serializes as the plain-form string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for JsonPointer {
    /// Deserializes from a plain-form string.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}
