//! [`Location`]: a cheap, growable place in a document for hot paths, materialized into a pointer on demand.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::escape::{push_escaped, unescape_valid, unescaped_bytes};
use crate::{JsonPointer, ParseError, fragment, order, parse};

/// A place in a JSON document, built step by step while walking it.
///
/// A `Location` keeps the escaped plain form in one string, so pushing a key or index appends to it, popping
/// truncates it, and neither allocates once the string has grown; [`Display`](fmt::Display) and
/// [`as_str`](Self::as_str) cost nothing. Convert to a [`JsonPointer`] with [`to_pointer`](Self::to_pointer)
/// only when a decoded form is needed.
///
/// Equality and hashing follow the plain form; ordering compares token by token, array indices numerically
/// (`/a/2` < `/a/10`) and before other keys, other keys by code point, and a prefix before its extensions. A key
/// that reads as a canonical index (`"2"`) is the same token as that index, since both print as `/2`.
/// Serializes as the plain-form string.
///
/// ```
/// use oa_pointer::Location;
///
/// let mut location = Location::root();
/// location.push_key("a/b");
/// location.push_index(10);
/// assert_eq!(location.to_string(), "/a~1b/10");
/// location.pop();
/// location.push_index(2);
/// assert!(location < Location::from_tokens(["a/b", "10"]));
/// ```
#[derive(Clone, Default)]
pub struct Location {
    /// The escaped plain form: empty for the root, else `/`-prefixed tokens with `~0` and `~1` escapes. Every
    /// `/` in it separates tokens, which is what lets [`Location::pop`] find the last one.
    text: String,
}

/// One step of a [`Location`]: an object member name or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Segment<'a> {
    /// An object member name (decoded: `a/b` is the key `a/b`).
    Key(&'a str),
    /// An array index.
    Index(usize),
}

impl Location {
    /// The whole document.
    pub fn root() -> Self {
        Self::default()
    }

    /// The root, with room for `bytes` bytes of escaped text, for callers that know roughly how long the location
    /// they are about to build will be (a validator building one per violation).
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// let mut location = Location::with_capacity(16);
    /// location.push_key("rows");
    /// location.push_index(2);
    /// assert_eq!(location.as_str(), "/rows/2");
    /// ```
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
        }
    }

    /// Builds a location from its steps, outermost first.
    ///
    /// ```
    /// # use oa_pointer::{Location, Segment};
    /// let location = Location::from_tokens([Segment::Key("items"), Segment::Index(0)]);
    /// assert_eq!(location.to_string(), "/items/0");
    /// assert_eq!(Location::from_tokens(["items", "0"]), location);
    /// ```
    pub fn from_tokens<'a, I>(tokens: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Segment<'a>>,
    {
        let mut location = Self::root();
        for token in tokens {
            location.push(token.into());
        }
        location
    }

    /// Parses the plain form (as [`JsonPointer::parse`]), keeping it as written.
    ///
    /// # Errors
    ///
    /// [`ParseError::MissingLeadingSlash`] or [`ParseError::InvalidTildeEscape`].
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// let location = Location::parse("/a~1b/0")?;
    /// assert_eq!(location.tokens().collect::<Vec<_>>(), ["a/b", "0"]);
    /// assert!(Location::parse("/~").is_err());
    /// # Ok::<(), oa_pointer::ParseError>(())
    /// ```
    pub fn parse(input: &str) -> Result<Self, ParseError> {
        parse::validate_plain(input)?;
        Ok(Self {
            text: input.to_owned(),
        })
    }

    /// Appends one step.
    pub fn push(&mut self, segment: Segment<'_>) {
        match segment {
            Segment::Key(key) => self.push_key(key),
            Segment::Index(index) => self.push_index(index),
        }
    }

    /// Appends an object member name (decoded; it is escaped here).
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// let mut location = Location::root();
    /// location.push_key("m~n");
    /// location.push_key("a/b");
    /// assert_eq!(location.as_str(), "/m~0n/a~1b");
    /// ```
    pub fn push_key(&mut self, key: &str) {
        self.text.push('/');
        if key.bytes().any(|byte| byte == b'~' || byte == b'/') {
            push_escaped(&mut self.text, key);
        } else {
            self.text.push_str(key);
        }
    }

    /// Appends an array index.
    pub fn push_index(&mut self, index: usize) {
        // Digits by hand: the formatting machinery costs more than the digits (reports can hold many indices).
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = index;
        loop {
            start -= 1;
            // `rest % 10` is below 10: the cast cannot truncate.
            #[allow(clippy::cast_possible_truncation)]
            let digit = (rest % 10) as u8;
            digits[start] = b'0' + digit;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        self.text.reserve(digits.len() - start + 1);
        self.text.push('/');
        for digit in &digits[start..] {
            self.text.push(char::from(*digit));
        }
    }

    /// Removes the last step; returns whether there was one (false at the root).
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// let mut location = Location::from_tokens(["a", "b"]);
    /// assert!(location.pop());
    /// assert_eq!(location.as_str(), "/a");
    /// assert!(location.pop());
    /// assert!(!location.pop());
    /// ```
    pub fn pop(&mut self) -> bool {
        match self.text.rfind('/') {
            Some(start) => {
                self.text.truncate(start);
                true
            }
            None => false,
        }
    }

    /// Shortens the location to the ancestor whose plain form is its first `len` bytes (a length
    /// [`as_str`](Self::as_str) had on the way here), keeping the buffer for what is pushed next: a caller that
    /// builds many neighbouring locations goes back to where they part without popping step by step. A length
    /// that ends no step (inside a token, or not below the current length) leaves the location as it is; returns
    /// whether it was shortened.
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// let mut location = Location::from_tokens(["rows", "2"]);
    /// location.push_key("name");
    /// assert!(location.truncate("/rows".len()));
    /// assert_eq!(location.as_str(), "/rows");
    /// assert!(!location.truncate(2)); // inside `rows`
    /// assert!(location.truncate(0));
    /// assert!(location.is_root());
    /// ```
    pub fn truncate(&mut self, len: usize) -> bool {
        if self.text.as_bytes().get(len) == Some(&b'/') {
            self.text.truncate(len);
            true
        } else {
            false
        }
    }

    /// The location of the containing value; `None` at the root.
    pub fn parent(&self) -> Option<Self> {
        let start = self.text.rfind('/')?;
        Some(Self {
            text: self.text.get(..start).unwrap_or_default().to_owned(),
        })
    }

    /// Whether this is the whole document.
    pub fn is_root(&self) -> bool {
        self.text.is_empty()
    }

    /// The number of steps (0 for the root).
    pub fn depth(&self) -> usize {
        self.text.bytes().filter(|&byte| byte == b'/').count()
    }

    /// The plain form, without copying.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The decoded tokens, outermost first (borrowed unless a token holds `~` or `/`).
    pub fn tokens(&self) -> impl DoubleEndedIterator<Item = Cow<'_, str>> {
        self.escaped_tokens().map(unescape_valid)
    }

    /// The equivalent [`JsonPointer`] (allocates one string per token).
    pub fn to_pointer(&self) -> JsonPointer {
        JsonPointer::from_tokens(self.tokens())
    }

    /// The URI-fragment form, as [`JsonPointer::to_fragment`].
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// assert_eq!(Location::from_tokens(["first name"]).to_fragment(), "#/first%20name");
    /// assert_eq!(Location::root().to_fragment(), "#");
    /// ```
    pub fn to_fragment(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 1);
        out.push('#');
        for token in self.tokens() {
            fragment::push_encoded_token(&mut out, &token);
        }
        out
    }

    /// Appends a byte string whose lexicographic order is this location's order (see [`Ord`]), for sorting many
    /// locations: a caller encodes each once and compares bytes, instead of splitting and decoding tokens at every
    /// comparison.
    ///
    /// Each token becomes a tag byte and a body: an index `0x01` and its value as 8 big-endian bytes, a key `0x02`
    /// and its decoded bytes (a `0x00` byte written `0x00 0xFF`) closed by `0x00 0x00`. So indices sort before
    /// keys and numerically, keys by code point, and a prefix before its extensions.
    ///
    /// ```
    /// # use oa_pointer::Location;
    /// let key = |text: &str| {
    ///     let mut key = Vec::new();
    ///     Location::parse(text).unwrap().push_sort_key(&mut key);
    ///     key
    /// };
    /// assert!(key("/a/2") < key("/a/10"));
    /// assert!(key("/a") < key("/a/0"));
    /// assert!(key("/9/x") < key("/b"));
    /// ```
    pub fn push_sort_key(&self, out: &mut Vec<u8>) {
        let Some(body) = self.text.strip_prefix('/') else {
            return;
        };
        // Room for the usual key: each token's tag and terminator, or an index's eight bytes.
        out.reserve(body.len() + 16);
        // Tokens found by a byte loop: they are short, and a searcher call per token costs more than the scan.
        let bytes = body.as_bytes();
        let mut start = 0;
        while start <= bytes.len() {
            let end = bytes
                .get(start..)
                .and_then(|rest| rest.iter().position(|&byte| byte == b'/'))
                .map_or(bytes.len(), |offset| start + offset);
            let token = body.get(start..end).unwrap_or_default();
            push_token_sort_key(out, token);
            start = end + 1;
        }
    }

    /// The escaped tokens, outermost first.
    fn escaped_tokens(&self) -> impl DoubleEndedIterator<Item = &str> {
        // The root has no tokens at all, while "/" has one empty token.
        self.text
            .strip_prefix('/')
            .into_iter()
            .flat_map(|body| body.split('/'))
    }
}

/// Appends one escaped token's part of a sort key (see [`Location::push_sort_key`]).
fn push_token_sort_key(out: &mut Vec<u8>, token: &str) {
    if token.contains('~') {
        // Only a key can hold an escape: decode it, then encode as a key.
        out.push(0x02);
        for byte in unescaped_bytes(token) {
            out.push(byte);
            if byte == 0 {
                out.push(0xFF);
            }
        }
        out.extend_from_slice(&[0x00, 0x00]);
    } else {
        Segment::Key(token).push_sort_key(out);
    }
}

impl Segment<'_> {
    /// Appends this step's part of a sort key, as [`Location::push_sort_key`] writes it for the step's token: a
    /// walker that builds locations step by step can build their keys alongside, without parsing them back.
    ///
    /// ```
    /// # use oa_pointer::{Location, Segment};
    /// let mut from_steps = Vec::new();
    /// Segment::Key("rows").push_sort_key(&mut from_steps);
    /// Segment::Index(2).push_sort_key(&mut from_steps);
    /// let mut from_location = Vec::new();
    /// Location::from_tokens(["rows", "2"]).push_sort_key(&mut from_location);
    /// assert_eq!(from_steps, from_location);
    /// ```
    pub fn push_sort_key(&self, out: &mut Vec<u8>) {
        // A key that reads as a canonical index is the same token as that index.
        let index = match *self {
            Segment::Index(index) => Some(index),
            Segment::Key(key) => order::canonical_index(key),
        };
        if let Some(index) = index {
            out.push(0x01);
            out.extend_from_slice(&(index as u64).to_be_bytes());
            return;
        }
        let key = match *self {
            Segment::Key(key) => key,
            Segment::Index(_) => "",
        };
        out.push(0x02);
        if key.bytes().any(|byte| byte == 0) {
            for byte in key.bytes() {
                out.push(byte);
                if byte == 0 {
                    out.push(0xFF);
                }
            }
        } else {
            out.extend_from_slice(key.as_bytes());
        }
        out.extend_from_slice(&[0x00, 0x00]);
    }
}

impl<'a> From<&'a str> for Segment<'a> {
    fn from(key: &'a str) -> Self {
        Segment::Key(key)
    }
}

impl<'a> From<&'a String> for Segment<'a> {
    fn from(key: &'a String) -> Self {
        Segment::Key(key)
    }
}

impl<'a> From<&'a Cow<'a, str>> for Segment<'a> {
    fn from(key: &'a Cow<'a, str>) -> Self {
        Segment::Key(key)
    }
}

impl<'a> From<&Segment<'a>> for Segment<'a> {
    fn from(segment: &Segment<'a>) -> Self {
        *segment
    }
}

impl From<usize> for Segment<'_> {
    fn from(index: usize) -> Self {
        Segment::Index(index)
    }
}

impl From<&JsonPointer> for Location {
    fn from(pointer: &JsonPointer) -> Self {
        Self::from_tokens(pointer.tokens())
    }
}

impl From<JsonPointer> for Location {
    fn from(pointer: JsonPointer) -> Self {
        Self::from(&pointer)
    }
}

impl From<&Location> for JsonPointer {
    fn from(location: &Location) -> Self {
        location.to_pointer()
    }
}

impl fmt::Display for Location {
    /// Writes the plain form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Location({:?})", self.text)
    }
}

impl FromStr for Location {
    type Err = ParseError;

    /// Parses the plain form, as [`Location::parse`].
    fn from_str(input: &str) -> Result<Self, ParseError> {
        Self::parse(input)
    }
}

impl PartialEq for Location {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Location {}

impl Hash for Location {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl PartialOrd for Location {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Location {
    /// Token by token, as the tokens' decoded forms order (indices numerically, names by their decoded bytes).
    /// Only the token where the two texts first differ is compared: the tokens before it are the same bytes, and
    /// two tokens with different bytes never compare equal (escaping and canonical indices are one-to-one). So a
    /// report's neighbouring locations, which share long prefixes, compare at the cost of a `memcmp` and one pair
    /// of tokens.
    fn cmp(&self, other: &Self) -> Ordering {
        let (left, right) = (self.text.as_bytes(), other.text.as_bytes());
        // The usual pair in a small report: two members of the root whose names differ at their first byte
        // (neither an index, an escape nor empty), which order as those bytes (the general case below, settled
        // without finding the common prefix).
        let plain = |byte: u8| byte != b'/' && byte != b'~' && !byte.is_ascii_digit();
        if let (Some(&left_first), Some(&right_first)) = (left.get(1), right.get(1))
            && left_first != right_first
            && plain(left_first)
            && plain(right_first)
        {
            return left_first.cmp(&right_first);
        }
        let common = common_prefix_len(left, right);
        if common == left.len() && common == right.len() {
            return Ordering::Equal;
        }
        // Every text but the root's starts with `/`: sharing no byte, one of them is the root, which comes first.
        let Some(slash) = left
            .get(..common)
            .and_then(|shared| shared.iter().rposition(|&byte| byte == b'/'))
        else {
            return left.len().cmp(&right.len());
        };
        let start = slash + 1;
        // The next decoded byte of each side, `None` where its token ends: the bytes before `common` are the same
        // and decode the same, unless `common` falls inside an escape (`~0` against `~1`).
        let next = |text: &[u8]| text.get(common).copied().filter(|&byte| byte != b'/');
        let (left_next, right_next) = (next(left), next(right));
        let first_is_digit = |text: &[u8]| text.get(start).is_some_and(u8::is_ascii_digit);
        let escaped_or_index = left_next == Some(b'~')
            || right_next == Some(b'~')
            || (common > start && left.get(common - 1) == Some(&b'~'))
            || first_is_digit(left)
            || first_is_digit(right);
        if !escaped_or_index {
            // Two names (the usual case): they order as their decoded bytes from the first that differs, a name
            // that ends there first; the same token when both end, and then the parent comes first.
            return match (left_next, right_next) {
                (None, None) => left.len().cmp(&right.len()),
                (left_next, right_next) => left_next.cmp(&right_next),
            };
        }
        let (left_end, right_end) = (token_end(left, common), token_end(right, common));
        if left_end == common && right_end == common {
            // The same token, then one location ends where the other goes on: the parent comes first.
            return left.len().cmp(&right.len());
        }
        let (left_token, right_token) = (
            self.text.get(start..left_end).unwrap_or_default(),
            other.text.get(start..right_end).unwrap_or_default(),
        );
        if is_short_index(left_token) && is_short_index(right_token) {
            // Two array indices (the other usual case): the shorter is the smaller, else the byte where they part.
            return left_token
                .len()
                .cmp(&right_token.len())
                .then(left_next.cmp(&right_next));
        }
        order::compare_escaped(left_token, right_token)
    }
}

/// The most digits with which every decimal number fits a `usize` (19 on 64 bits).
const SHORT_INDEX_DIGITS: usize = usize::MAX.ilog10() as usize;

/// Whether a token is the canonical decimal form of an index of at most [`SHORT_INDEX_DIGITS`] digits: such indices
/// order by length, then digit by digit. Longer digit runs go through [`order`], which parses them.
fn is_short_index(token: &str) -> bool {
    match token.as_bytes() {
        [] | [b'0', _, ..] => false,
        bytes => bytes.len() <= SHORT_INDEX_DIGITS && bytes.iter().all(u8::is_ascii_digit),
    }
}

/// Where the token that holds byte `from` of a plain-form text ends. Tokens are short: a byte loop beats a
/// searcher call.
fn token_end(text: &[u8], from: usize) -> usize {
    let mut end = from;
    while text.get(end).is_some_and(|&byte| byte != b'/') {
        end += 1;
    }
    end
}

/// How many leading bytes two texts share, compared eight at a time as words; the last few bytes as the word that
/// ends the shorter text (its bytes before `common` are the same on both sides), so that no byte loop runs.
fn common_prefix_len(left: &[u8], right: &[u8]) -> usize {
    let len = left.len().min(right.len());
    let word = |text: &[u8], at: usize| {
        text.get(at..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map_or(0, |chunk| u64::from_le_bytes(*chunk))
    };
    let mut common = 0;
    while common + 8 <= len {
        let differ = word(left, common) ^ word(right, common);
        if differ != 0 {
            // Little-endian: the lowest set bit is in the first byte that differs.
            return common + (differ.trailing_zeros() / 8) as usize;
        }
        common += 8;
    }
    if common == len {
        return len;
    }
    if len >= 8 {
        // The last word of the shorter text overlaps bytes already known to be equal: a difference in it lies at
        // or after `common`.
        let at = len - 8;
        let differ = word(left, at) ^ word(right, at);
        return if differ == 0 {
            len
        } else {
            at + (differ.trailing_zeros() / 8) as usize
        };
    }
    common
        + left
            .get(common..len)
            .unwrap_or_default()
            .iter()
            .zip(right.get(common..len).unwrap_or_default())
            .take_while(|(a, b)| a == b)
            .count()
}

impl Serialize for Location {
    /// Serializes as the plain-form string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Location {
    /// Deserializes from a plain-form string.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse::validate_plain(&text).map_err(serde::de::Error::custom)?;
        Ok(Self { text })
    }
}

#[cfg(test)]
mod tests {
    use super::common_prefix_len;

    /// Every pair of lengths up to three words, parting at every byte (and not at all): the word-wise count is the
    /// byte-wise one.
    #[test]
    fn common_prefix_len_counts_as_a_byte_loop_does() {
        let base: Vec<u8> = (0..24u8).map(|byte| b'a' + byte).collect();
        for left_len in 0..=base.len() {
            for right_len in 0..=base.len() {
                for part in 0..=left_len.min(right_len) {
                    let left = base.get(..left_len).unwrap_or_default().to_vec();
                    let mut right = base.get(..right_len).unwrap_or_default().to_vec();
                    if let Some(byte) = right.get_mut(part) {
                        *byte = b'/';
                    }
                    let want = left.iter().zip(&right).take_while(|(a, b)| a == b).count();
                    assert_eq!(
                        common_prefix_len(&left, &right),
                        want,
                        "{left_len} {right_len} {part}"
                    );
                    assert_eq!(
                        common_prefix_len(&right, &left),
                        want,
                        "{left_len} {right_len} {part}"
                    );
                }
            }
        }
    }
}
