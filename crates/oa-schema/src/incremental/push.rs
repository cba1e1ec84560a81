//! The push parser: JSON text fed in chunks split anywhere, read by exactly `parse_json`'s rules (RFC 8259, through
//! serde_json's own decoding of each string and number token, so that values and digits are what a whole-text parse
//! gives), with repeated member names refused as `parse_json_with(.., reject_duplicate_keys(true))` refuses them,
//! and each error named as `parse_json` names it (kind, reason, line and column). Nesting has a limit of its own,
//! reported as a limit.
//!
//! What it cannot know when it meets an error, it waits for: whether the offending `/` opens a comment (one more
//! byte), whether a leading `0xEF` is a byte-order mark (two more), and a repeated member name, which `parse_json_with`
//! reports only when the whole text is otherwise well-formed (so it is reported at the end).

use super::certain::{Certain, Entries, Start};
use super::completed::CompletedValues;
use super::span;
use super::token::{Digits, Escape, Position, number, placed, token_error};
use crate::parse::MalformedJson;
use crate::strict::{MemberNames, REPEAT_PREFIX};
use crate::validator::Validator;
use serde_json::{Map, Value};

/// Why the text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PushError {
    /// Not well-formed JSON, named as `parse_json_with` (duplicate member names refused) names it.
    Malformed(MalformedJson),
    /// More containers open at once than the limit allows, at the container that went beyond it.
    TooDeep {
        limit: usize,
        line: usize,
        column: usize,
    },
}

/// What may come next outside a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value: the document's, or a member's after its `:`.
    Value,
    /// After `[`: an item or `]`.
    FirstItem,
    /// After an item: `,` or `]`.
    ItemEnd,
    /// After an array's `,`: an item.
    Item,
    /// After `{`: a name or `}`.
    FirstName,
    /// After a member: `,` or `}`.
    MemberEnd,
    /// After an object's `,`: a name.
    Name,
    /// After a name: `:`.
    Colon,
    /// After the document's value: whitespace only.
    End,
}

/// The token being read, its bytes kept (serde_json decodes them when it ends) with where it began.
#[derive(Debug)]
enum Token {
    None,
    /// A string, from its opening quote; `name` when it is a member's name.
    Text {
        bytes: Vec<u8>,
        start: Position,
        name: bool,
        escape: Escape,
    },
    Number {
        bytes: Vec<u8>,
        start: Position,
        digits: Digits,
    },
    /// `true`, `false` or `null`, `read` bytes of it met.
    Literal {
        word: &'static [u8],
        read: usize,
    },
}

/// An open container.
#[derive(Debug)]
pub(super) enum Frame {
    Array(Vec<Value>),
    /// An object and the name of the member whose value is being read.
    Object(Map<String, Value>, Option<String>),
    /// An array whose items are not kept: the tracker checks each as it goes by.
    PassingArray,
    /// An object whose members are not kept: its names only, for repeats.
    PassingObject(MemberNames),
}

/// An error found, waiting for the bytes that decide how `parse_json` names it: `rest` holds the text from where
/// `parse_json` looks (the error's byte, or its line's start at column 0), `want` how many bytes of it decide.
#[derive(Debug)]
struct Pending {
    error: MalformedJson,
    rest: Vec<u8>,
    want: usize,
    /// The text starts at `rest`: a byte-order mark there is what is named.
    at_start: bool,
}

impl Pending {
    fn settle(self) -> MalformedJson {
        if self.at_start && self.rest.starts_with(&[0xEF, 0xBB, 0xBF]) {
            MalformedJson::byte_order_mark()
        } else {
            self.error.naming_a_comment(Some(&self.rest))
        }
    }
}

/// The push parser (see the module's documentation).
#[derive(Debug)]
pub(crate) struct PushParser {
    max_depth: usize,
    position: Position,
    expect: Expect,
    token: Token,
    stack: Vec<Frame>,
    root: Option<Value>,
    pending: Option<Pending>,
    failed: Option<PushError>,
    /// The first repeated member name, reported at the end when nothing else went wrong.
    repeat: Option<MalformedJson>,
    /// The error for a repeated name just read, placed where `parse_json_with`'s check places it: after the
    /// whitespace that follows the name.
    repeated: Option<String>,
    /// The certain-violation tracker, told of each value as it is read.
    watcher: Option<Watcher>,
    /// Whether every value is kept (else only those the tracker captures: see `certain.rs`).
    keep_values: bool,
    /// Where each completed value is copied, when asked (`completed.rs`).
    pub(super) completed: Option<CompletedValues>,
    /// The last string or number token's buffer, reused by the next (one allocation per run, not per token);
    /// not kept beyond [`SPARE_MAX`] bytes, so that one long string does not stay held.
    spare: Vec<u8>,
    /// Bytes scanned by attempts to read a container in one step that failed (it did not close in the bytes at
    /// hand, or was read byte by byte after all; the deserializer read at most as many): attempts stop while this
    /// passes [`WASTE_RATIO`] times the bytes fed, so that nested failures (each level scanned again) cost a bounded
    /// multiple of the text, not one more read per level.
    wasted: usize,
    /// Bytes fed so far.
    fed: usize,
    /// The bytes after its first that the container just skipped held, for `feed` to step over.
    skipped: usize,
    /// Whether reading stops at the first certain violation (see [`stop_at_first`](Self::stop_at_first)).
    pub(super) first_only: bool,
}

/// The largest container read into a value to be checked whole when it is not valid (the value costs several
/// times its text, held while it is checked): the size below which `slice.rs` reads a whole text into a value.
const VALUE_SPAN_MAX: usize = 1 << 20;

/// How many times the bytes fed failed attempts may scan.
const WASTE_RATIO: usize = 2;

/// The largest token buffer kept for reuse.
const SPARE_MAX: usize = 4 << 10;

/// The tracker and the schema it reads.
#[derive(Debug)]
pub(crate) struct Watcher {
    pub(crate) certain: Certain,
    validator: Validator,
}

/// What serde_json's `ErrorCode`s print, for the errors this parser raises itself.
mod reason {
    pub(super) const EXPECTED_VALUE: &str = "expected value";
    pub(super) const EXPECTED_IDENT: &str = "expected ident";
    pub(super) const EXPECTED_COLON: &str = "expected `:`";
    pub(super) const LIST_COMMA_OR_END: &str = "expected `,` or `]`";
    pub(super) const OBJECT_COMMA_OR_END: &str = "expected `,` or `}`";
    pub(super) const KEY_MUST_BE_A_STRING: &str = "key must be a string";
    pub(super) const TRAILING_COMMA: &str = "trailing comma";
    pub(super) const TRAILING_CHARACTERS: &str = "trailing characters";
    pub(super) const EOF_VALUE: &str = "EOF while parsing a value";
    pub(super) const EOF_LIST: &str = "EOF while parsing a list";
    pub(super) const EOF_OBJECT: &str = "EOF while parsing an object";
}

impl PushParser {
    pub(crate) fn new(max_depth: usize, validator: Option<&Validator>, keep_values: bool) -> Self {
        Self {
            max_depth,
            position: Position {
                offset: 0,
                line: 1,
                column: 0,
            },
            expect: Expect::Value,
            token: Token::None,
            stack: Vec::new(),
            root: None,
            pending: None,
            failed: None,
            repeat: None,
            repeated: None,
            watcher: validator.map(|validator| Watcher {
                certain: Certain::new(validator.compiled(), !keep_values),
                validator: validator.clone(),
            }),
            keep_values: keep_values || validator.is_none(),
            completed: None,
            spare: Vec::new(),
            wasted: 0,
            fed: 0,
            skipped: 0,
            first_only: false,
        }
    }

    /// Keeps no values from now on (set before the first byte): only what the tracker captures, and the tracker's
    /// findings are the whole report.
    pub(crate) fn keep_no_values(&mut self) {
        if let Some(watcher) = &mut self.watcher {
            self.keep_values = false;
            watcher.certain.whole = true;
            // Nothing is copied without the value.
            self.completed = None;
        }
    }

    /// Stops reading at the first certain violation (set before the first byte): one is kept, and the bytes after
    /// the one that made it certain are not read.
    pub(crate) fn stop_at_first(&mut self) {
        if let Some(watcher) = &mut self.watcher {
            watcher.certain.first = true;
            self.first_only = true;
        }
    }

    /// Whether the run stopped at its first certain violation.
    pub(crate) fn stopped(&self) -> bool {
        self.first_only && !self.certain().is_empty()
    }

    /// The first repeated member name met, if any (reported before a violation: `parse_json_with` refuses the text).
    pub(crate) fn take_repeat(&mut self) -> Option<MalformedJson> {
        self.repeat.take()
    }

    /// A token's buffer holding its first byte: the spare one when there is one.
    fn buffer(&mut self, byte: u8) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.spare);
        bytes.clear();
        bytes.push(byte);
        bytes
    }

    /// A finished token's buffer, kept for the next token when small.
    fn reuse(&mut self, bytes: Vec<u8>) {
        if bytes.capacity() <= SPARE_MAX {
            self.spare = bytes;
        }
    }

    /// The certain violations found, handed over (when values are not kept, the whole report).
    pub(crate) fn take_certain(&mut self) -> Vec<crate::Violation> {
        self.watcher
            .as_mut()
            .map(|watcher| watcher.certain.take_found())
            .unwrap_or_default()
    }

    /// The certain violations found so far.
    pub(crate) fn certain(&self) -> &[crate::Violation] {
        self.watcher
            .as_ref()
            .map_or(&[], |watcher| watcher.certain.found())
    }

    /// Tells the tracker something, with its schema.
    fn tell(&mut self, event: impl FnOnce(&mut Certain, &crate::node::CompiledSchema)) {
        if let Some(watcher) = &mut self.watcher {
            event(&mut watcher.certain, watcher.validator.compiled());
        }
    }

    /// Reads `chunk`; an error is final (every later call returns it again).
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), PushError> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        self.fed = self.fed.saturating_add(chunk.len());
        let mut idx = 0;
        while idx < chunk.len() {
            if self.first_only && self.stopped() {
                // The verdict is known: the rest is not read.
                return Ok(());
            }
            if let Some(pending) = &mut self.pending {
                let take = (pending.want - pending.rest.len()).min(chunk.len() - idx);
                pending.rest.extend_from_slice(&chunk[idx..idx + take]);
                if pending.rest.len() < pending.want {
                    return Ok(());
                }
                return Err(self.settle());
            }
            // A string's plain text in one go: no byte of it changes the state.
            if let Token::Text {
                bytes,
                escape: Escape::None,
                name,
                ..
            } = &mut self.token
            {
                let run = chunk[idx..]
                    .iter()
                    .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
                    .unwrap_or(chunk.len() - idx);
                if run > 0 {
                    bytes.extend_from_slice(&chunk[idx..idx + run]);
                    let value_text = !*name;
                    if value_text {
                        let text = &chunk[idx..idx + run];
                        self.tell(|certain, schema| certain.text(schema, text));
                    }
                    // No newline in a string's plain text: it is a control character, an error.
                    self.position.offset += run;
                    self.position.column += run;
                    idx += run;
                    continue;
                }
            }
            // Whitespace or a digit: perhaps a run of them (a compact text's other bytes skip the look).
            if matches!(chunk[idx], b' ' | b'\n' | b'\t' | b'\r' | b'0'..=b'9') {
                let run = self.bulk(&chunk[idx..]);
                if run > 0 {
                    idx += run;
                    continue;
                }
            }
            self.byte(chunk, idx)?;
            // The byte, and what a skipped container held after it.
            idx += 1 + std::mem::take(&mut self.skipped);
        }
        Ok(())
    }

    /// Reads in one go the bytes at the start of `rest` that only move the position: whitespace between tokens,
    /// and the digits that continue a number's integer, fraction or exponent (each leaves the number's state as it
    /// is). How many it read; `byte` reads the rest, one at a time.
    fn bulk(&mut self, rest: &[u8]) -> usize {
        match &mut self.token {
            Token::None => {
                let run = rest
                    .iter()
                    .position(|&byte| !matches!(byte, b' ' | b'\n' | b'\t' | b'\r'))
                    .unwrap_or(rest.len());
                for &byte in &rest[..run] {
                    self.position.advance(byte);
                }
                run
            }
            Token::Number {
                bytes,
                digits: Digits::Int | Digits::Frac | Digits::Exponent,
                ..
            } => {
                let run = rest
                    .iter()
                    .position(|byte| !byte.is_ascii_digit())
                    .unwrap_or(rest.len());
                bytes.extend_from_slice(&rest[..run]);
                // No newline among digits.
                self.position.offset += run;
                self.position.column += run;
                run
            }
            _ => 0,
        }
    }

    /// The text has ended: the document's value, or why there is none.
    pub(crate) fn finish(&mut self) -> Result<Value, PushError> {
        if let Some(failed) = self.failed.take() {
            return Err(failed);
        }
        if self.pending.is_some() {
            return Err(self.settle());
        }
        match std::mem::replace(&mut self.token, Token::None) {
            Token::None => {}
            Token::Text { bytes, start, .. } => {
                return Err(PushError::Malformed(token_error(&bytes, start)));
            }
            Token::Number { bytes, start, .. } => {
                let value = number(&bytes, start, None).map_err(PushError::Malformed)?;
                self.complete_scalar(value);
            }
            Token::Literal { .. } => return Err(self.eof(reason::EOF_VALUE)),
        }
        let eof_reason = match self.expect {
            Expect::End => {
                return match (self.repeat.take(), self.root.take()) {
                    (Some(repeat), _) => Err(PushError::Malformed(repeat)),
                    (None, Some(root)) => Ok(root),
                    (None, None) => Err(self.eof(reason::EOF_VALUE)),
                };
            }
            Expect::Value | Expect::Item | Expect::Name => reason::EOF_VALUE,
            Expect::FirstItem | Expect::ItemEnd => reason::EOF_LIST,
            Expect::FirstName | Expect::MemberEnd | Expect::Colon => reason::EOF_OBJECT,
        };
        Err(self.eof(eof_reason))
    }

    /// An error at the end of the text (`parse_json` names no comment there: one byte is left on the line at most).
    fn eof(&self, reason: &str) -> PushError {
        PushError::Malformed(MalformedJson::from_reason(
            self.position.line,
            self.position.column,
            reason,
            true,
        ))
    }

    fn settle(&mut self) -> PushError {
        let error = match self.pending.take() {
            Some(pending) => PushError::Malformed(pending.settle()),
            None => PushError::Malformed(MalformedJson::from_reason(0, 0, "internal error", false)),
        };
        self.failed = Some(error.clone());
        error
    }

    /// Fails at `byte`, the next to read (serde_json's `peek_error`), once the bytes that name it are known.
    fn fail_at(&mut self, byte: u8, reason: &str) -> Result<(), PushError> {
        let (line, column) = self.position.after(byte);
        let error = MalformedJson::from_reason(line, column, reason, false);
        // `parse_json` reads the text from the byte (or, at column 0, from the next line's start, still to come).
        let known: &[u8] = if column == 0 { &[] } else { &[byte] };
        let at_start = self.position.offset == 0 && column != 0;
        self.wait(error, known, at_start)
    }

    /// Names `error` once the bytes from where `parse_json` looks are known: `known` of them are, the rest come
    /// with the next bytes fed (or the text's end).
    fn wait(&mut self, error: MalformedJson, known: &[u8], at_start: bool) -> Result<(), PushError> {
        let want = if at_start { 3 } else { 2 };
        let rest = known[..known.len().min(want)].to_vec();
        // Only a `/` can open a comment, and only 0xEF a byte-order mark.
        let decided = rest.len() == want
            || rest
                .first()
                .is_some_and(|&first| first != b'/' && !(at_start && first == 0xEF));
        self.pending = Some(Pending {
            error,
            rest,
            want,
            at_start,
        });
        if decided {
            return Err(self.settle());
        }
        Ok(())
    }

    fn byte(&mut self, chunk: &[u8], idx: usize) -> Result<(), PushError> {
        let byte = chunk[idx];
        match &mut self.token {
            Token::None => {}
            Token::Text { .. } => return self.text_byte(chunk, idx),
            Token::Number { digits, bytes, .. } => {
                if let Some(next) = digits.next(byte) {
                    *digits = next;
                    bytes.push(byte);
                    self.position.advance(byte);
                    return Ok(());
                }
                let Token::Number { bytes, start, .. } = std::mem::replace(&mut self.token, Token::None)
                else {
                    return Ok(());
                };
                match number(&bytes, start, Some(byte)) {
                    Ok(value) => {
                        self.reuse(bytes);
                        self.complete_scalar(value);
                    }
                    Err(error) => {
                        let mut view = bytes;
                        view.push(byte);
                        return self.fail_in_token(error, &view, start);
                    }
                }
                // The byte that ended the number is read as any other.
            }
            Token::Literal { word, read } => {
                if byte != word[*read] {
                    return self.fail_at(byte, reason::EXPECTED_IDENT);
                }
                *read += 1;
                self.position.advance(byte);
                if *read == word.len() {
                    let value = match word[0] {
                        b't' => Value::Bool(true),
                        b'f' => Value::Bool(false),
                        _ => Value::Null,
                    };
                    self.token = Token::None;
                    self.complete_scalar(value);
                }
                return Ok(());
            }
        }
        if matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
            self.position.advance(byte);
            return Ok(());
        }
        match self.expect {
            Expect::Value | Expect::FirstItem | Expect::Item => {
                if byte == b']' && self.expect == Expect::FirstItem {
                    self.position.advance(byte);
                    self.close();
                    return Ok(());
                }
                if byte == b']' && self.expect == Expect::Item {
                    return self.fail_at(byte, reason::TRAILING_COMMA);
                }
                self.value_start(chunk, idx)
            }
            Expect::ItemEnd => match byte {
                b',' => self.step(byte, Expect::Item),
                b']' => {
                    self.position.advance(byte);
                    self.close();
                    Ok(())
                }
                _ => self.fail_at(byte, reason::LIST_COMMA_OR_END),
            },
            Expect::FirstName | Expect::Name => match byte {
                b'"' => {
                    self.token = Token::Text {
                        bytes: self.buffer(byte),
                        start: self.position,
                        name: true,
                        escape: Escape::None,
                    };
                    self.position.advance(byte);
                    Ok(())
                }
                b'}' if self.expect == Expect::FirstName => {
                    self.position.advance(byte);
                    self.close();
                    Ok(())
                }
                b'}' => self.fail_at(byte, reason::TRAILING_COMMA),
                _ => self.fail_at(byte, reason::KEY_MUST_BE_A_STRING),
            },
            Expect::MemberEnd => match byte {
                b',' => self.step(byte, Expect::Name),
                b'}' => {
                    self.position.advance(byte);
                    self.close();
                    Ok(())
                }
                _ => self.fail_at(byte, reason::OBJECT_COMMA_OR_END),
            },
            Expect::Colon => match byte {
                _ if self.repeated.is_some() => {
                    let reason = self.repeated.take().unwrap_or_default();
                    self.repeat = Some(MalformedJson::from_reason(
                        self.position.line,
                        self.position.column,
                        &reason,
                        false,
                    ));
                    self.byte(chunk, idx)
                }
                b':' => self.step(byte, Expect::Value),
                _ => self.fail_at(byte, reason::EXPECTED_COLON),
            },
            Expect::End => self.fail_at(byte, reason::TRAILING_CHARACTERS),
        }
    }

    fn step(&mut self, byte: u8, expect: Expect) -> Result<(), PushError> {
        self.position.advance(byte);
        self.expect = expect;
        Ok(())
    }

    /// The first byte of a value.
    fn value_start(&mut self, chunk: &[u8], idx: usize) -> Result<(), PushError> {
        let byte = chunk[idx];
        let start = self.position;
        match byte {
            b'[' | b'{' => {
                if self.stack.len() >= self.max_depth {
                    let (line, column) = start.after(byte);
                    let error = PushError::TooDeep {
                        limit: self.max_depth,
                        line,
                        column,
                    };
                    self.failed = Some(error.clone());
                    return Err(error);
                }
                let start = if byte == b'[' { Start::Array } else { Start::Object };
                let entries = match &mut self.watcher {
                    Some(watcher) => Some(watcher.certain.entries(watcher.validator.compiled())),
                    None => None,
                };
                let entries = match entries {
                    Some(entries) => match self.skip(&chunk[idx..], entries) {
                        Ok(()) => return Ok(()),
                        Err(entries) => Some(entries),
                    },
                    None => None,
                };
                self.position.advance(byte);
                let capture = match (&mut self.watcher, entries) {
                    (Some(watcher), Some(entries)) => {
                        watcher
                            .certain
                            .started(watcher.validator.compiled(), start, entries)
                    }
                    _ => true,
                };
                let keep = self.keep_values || capture;
                self.stack.push(match (byte == b'[', keep) {
                    (true, true) => Frame::Array(Vec::new()),
                    (true, false) => Frame::PassingArray,
                    (false, true) => Frame::Object(Map::new(), None),
                    (false, false) => Frame::PassingObject(MemberNames::default()),
                });
                self.expect = if byte == b'[' {
                    Expect::FirstItem
                } else {
                    Expect::FirstName
                };
            }
            b'"' => {
                self.tell(|certain, schema| {
                    certain.value_start(schema, Start::String);
                });
                self.token = Token::Text {
                    bytes: self.buffer(byte),
                    start,
                    name: false,
                    escape: Escape::None,
                };
                self.position.advance(byte);
            }
            b't' | b'f' | b'n' => {
                let word: &'static [u8] = match byte {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                self.tell(|certain, schema| {
                    certain.value_start(schema, Start::Other);
                });
                self.token = Token::Literal { word, read: 1 };
                self.position.advance(byte);
            }
            _ => match Digits::start(byte) {
                Some(digits) => {
                    self.tell(|certain, schema| {
                        certain.value_start(schema, Start::Other);
                    });
                    self.token = Token::Number {
                        bytes: self.buffer(byte),
                        start,
                        digits,
                    };
                    self.position.advance(byte);
                }
                None => return self.fail_at(byte, reason::EXPECTED_VALUE),
            },
        }
        Ok(())
    }

    /// Reads in one step the array or object that `rest` starts with, at `entries`, when it is complete in `rest`
    /// (and does not nest past the limit). Where its value is not needed (not kept, its container not captured),
    /// the validating deserializer (`crate::typed`) reads it at each entry's node, strictly (`parse_json`'s rules, a
    /// repeated name refused), building nothing: valid at each, no violation can be certain inside it, and it is
    /// skipped. Otherwise (needed, or not valid and small: [`VALUE_SPAN_MAX`]) its value is read strictly and
    /// checked whole at its entries, as a captured container is at its close: its violations are what the whole
    /// walk reports under it; a needed value joins its container. Not while completed values are copied (each
    /// member is handed over). What is not read in one step is read byte by byte as before (the errors of a
    /// malformed text are named there, so they do not change). The entries back when it was not.
    fn skip(&mut self, rest: &[u8], entries: Entries) -> Result<(), Entries> {
        let Some(watcher) = &self.watcher else {
            return Err(entries);
        };
        if self.completed.is_some()
            || self.wasted > self.fed.saturating_mul(WASTE_RATIO)
            || !watcher.certain.judgeable(&entries)
        {
            return Err(entries);
        }
        let needed = self.keep_values || watcher.certain.in_captured();
        // The document's value fed whole (only whitespace after it) is taken to end where the bytes do, without the
        // scan: the strict read that judges it checks that guess (one value, nesting within `parse_json`'s limit,
        // which this parser's default is), and where it fails the bytes are read byte by byte, as after a scan.
        let guessed = (self.stack.is_empty() && self.max_depth >= super::DEFAULT_MAX_DEPTH)
            .then(|| span::whole(rest))
            .flatten();
        let span = match guessed {
            Some(span) => span,
            None => match span::container(rest, self.max_depth - self.stack.len()) {
                Ok(span) => span,
                Err(looked) => {
                    self.wasted += looked;
                    return Err(entries);
                }
            },
        };
        let Ok(text) = std::str::from_utf8(&rest[..span.len]) else {
            self.wasted += span.len;
            return Err(entries);
        };
        // Where the deserializer would read the value whole anyway, it is read once, directly.
        let Some(Watcher { certain, validator }) = &mut self.watcher else {
            return Err(entries);
        };
        let schema = validator.compiled();
        let mut judged = false;
        let object = rest.first() == Some(&b'{');
        let direct = needed
            || (span.len <= VALUE_SPAN_MAX
                && entries
                    .nodes()
                    .any(|(node, _)| crate::typed::reads_whole_at(schema, node, object)));
        let holds = !direct && {
            // Strict (`parse_json`'s rules, a repeated name refused) and valid at the node; `false` also where the
            // read cannot decide.
            let holds = |node, depth| {
                crate::typed::deserialize_at::<serde::de::IgnoredAny>(schema, node, depth, text).is_ok()
            };
            let mut nodes = entries.nodes().peekable();
            if nodes.peek().is_none() {
                // Nothing reached certainly: only read.
                holds(None, 0)
            } else {
                // Judged at its entries in one pass that also names the violations (up to the first, in a run that
                // stops there); where that pass does not answer, the verdict alone, and the value if it fails.
                match certain.collected(schema, &entries, text) {
                    Some(valid) => {
                        judged = true;
                        valid
                    }
                    None => nodes.all(|(node, depth)| holds(Some(node), depth)),
                }
            }
        };
        let mut kept = Value::Null;
        if !holds && !judged {
            let value = (needed || span.len <= VALUE_SPAN_MAX)
                .then(|| strict_value(text))
                .flatten();
            let (Some(value), Some(watcher)) = (value, &mut self.watcher) else {
                self.wasted += span.len;
                return Err(entries);
            };
            let schema = watcher.validator.compiled();
            if direct && (needed || watcher.certain.first) {
                // Checked as the byte-by-byte read would check it (the yes/no evaluator first); kept if needed.
                watcher.certain.checked(schema, entries, &value);
                if needed {
                    kept = value;
                }
            } else {
                watcher.certain.judged(schema, entries, &value);
            }
        }
        self.skipped = span.len - 1;
        self.position.offset += span.len;
        if span.newlines == 0 {
            self.position.column += span.len;
        } else {
            self.position.line += span.newlines;
            self.position.column = span.tail;
        }
        // A value not needed leaves a placeholder, which its container (not kept either) drops.
        self.complete(kept);
        Ok(())
    }

    /// One byte of a string that is not plain text: a quote, a backslash, an escape's byte, a control character.
    fn text_byte(&mut self, chunk: &[u8], idx: usize) -> Result<(), PushError> {
        let byte = chunk[idx];
        let Token::Text {
            bytes, escape, name, ..
        } = &mut self.token
        else {
            return Ok(());
        };
        let value_text = !*name;
        bytes.push(byte);
        let broken = match *escape {
            Escape::None if byte == b'"' => {
                self.position.advance(byte);
                let Token::Text {
                    bytes, start, name, ..
                } = std::mem::replace(&mut self.token, Token::None)
                else {
                    return Ok(());
                };
                return match serde_json::from_slice::<String>(&bytes) {
                    Ok(text) => {
                        self.reuse(bytes);
                        if name {
                            self.name(text);
                        } else {
                            self.complete_scalar(Value::String(text));
                        }
                        Ok(())
                    }
                    Err(err) => self.fail_in_token(placed(&err, start), &bytes, start),
                };
            }
            Escape::None if byte == b'\\' => {
                *escape = Escape::Backslash;
                false
            }
            Escape::None => byte < 0x20,
            Escape::Backslash => {
                *escape = match byte {
                    b'u' => Escape::Hex(4),
                    _ => Escape::None,
                };
                !matches!(
                    byte,
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u'
                )
            }
            // serde_json reads the four digits, then decodes them.
            Escape::Hex(1) => {
                *escape = Escape::None;
                !bytes[bytes.len() - 4..].iter().all(u8::is_ascii_hexdigit)
            }
            Escape::Hex(left) => {
                *escape = Escape::Hex(left - 1);
                false
            }
        };
        self.position.advance(byte);
        if broken {
            // serde_json stops at this byte: its error, read from the token so far.
            let Token::Text { bytes, start, .. } = std::mem::replace(&mut self.token, Token::None) else {
                return Ok(());
            };
            let error = token_error(&bytes, start);
            return self.fail_in_token(error, &bytes, start);
        }
        if value_text {
            self.tell(|certain, schema| certain.text(schema, &[byte]));
        }
        Ok(())
    }

    /// Fails with `error`, found in a token whose text from `start` up to the byte just read is `view`:
    /// `parse_json` names it from the text where it went wrong, which `view` and the bytes to come hold.
    fn fail_in_token(&mut self, error: MalformedJson, view: &[u8], start: Position) -> Result<(), PushError> {
        // Where `parse_json` looks, as an offset into `view`: the error's byte, or its line's start at column 0.
        let from = if error.line() <= start.line {
            // Columns count from the line's start, before the token.
            (error.column().max(1) - 1).checked_sub(start.column)
        } else {
            view.iter()
                .enumerate()
                .filter(|(_, byte)| **byte == b'\n')
                .nth(error.line() - start.line - 1)
                .map(|(at, _)| at + 1 + error.column().saturating_sub(1))
        };
        match from {
            Some(from) => {
                let known = view.get(from..).unwrap_or(&[]).to_vec();
                self.wait(error, &known, start.offset + from == 0)
            }
            // Before the token: not a comment's start (the token's first byte is not `/`).
            None => {
                self.failed = Some(PushError::Malformed(error.clone()));
                Err(PushError::Malformed(error))
            }
        }
    }

    /// A member's name, read: noted for repeats, and held for its value.
    fn name(&mut self, name: String) {
        self.tell(|certain, schema| certain.name(schema, &name));
        let first_repeat = self.repeat.is_none() && self.repeated.is_none();
        let seen = match self.stack.last_mut() {
            Some(Frame::Object(map, _)) => first_repeat && map.contains_key(&name),
            // Noted whether or not a repeat was met before: the names are all this frame keeps.
            Some(Frame::PassingObject(names)) => !names.insert(&name),
            _ => false,
        };
        if seen && first_repeat {
            self.repeated = Some(format!("{REPEAT_PREFIX} {name:?}"));
        }
        if let Some(Frame::Object(_, pending)) = self.stack.last_mut() {
            *pending = Some(name);
        }
        self.expect = Expect::Colon;
    }

    /// A string, number or literal is complete.
    fn complete_scalar(&mut self, value: Value) {
        self.tell(|certain, schema| certain.scalar(schema, &value));
        self.complete(value);
    }

    /// A value is complete: it joins its container, or is the document's.
    fn complete(&mut self, value: Value) {
        if let Some(completed) = &mut self.completed {
            completed.record(&self.stack, &value);
        }
        match self.stack.last_mut() {
            None => {
                self.root = Some(value);
                self.expect = Expect::End;
            }
            Some(Frame::Array(items)) => {
                items.push(value);
                self.expect = Expect::ItemEnd;
            }
            Some(Frame::Object(map, name)) => {
                map.insert(name.take().unwrap_or_default(), value);
                self.expect = Expect::MemberEnd;
            }
            // Checked as it went by, not kept.
            Some(Frame::PassingArray) => self.expect = Expect::ItemEnd,
            Some(Frame::PassingObject(_)) => self.expect = Expect::MemberEnd,
        }
    }

    /// The innermost container closes.
    fn close(&mut self) {
        let value = match self.stack.pop() {
            Some(Frame::Array(items)) => Some(Value::Array(items)),
            Some(Frame::Object(map, _)) => Some(Value::Object(map)),
            Some(Frame::PassingArray | Frame::PassingObject(_)) => None,
            None => return,
        };
        self.tell(|certain, schema| certain.close(schema, value.as_ref()));
        // A container not kept leaves a placeholder, which its container (not kept either) drops.
        self.complete(value.unwrap_or(Value::Null));
    }
}

/// The value of `text`, one JSON value, as `parse_json_with` reads it with repeated names refused; `None` when it
/// is not well-formed or not read that way (a repeat, a number kept as digits): the push parser then reads it.
fn strict_value(text: &str) -> Option<Value> {
    use serde::de::DeserializeSeed;
    let declined = std::cell::Cell::new(false);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    crate::strict::StrictValue { declined: &declined }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .ok()
        .filter(|_| !declined.get())
}
