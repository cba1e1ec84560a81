//! The push parser's tokens: where the text has been read (serde_json's line and column), a number's place in RFC
//! 8259's grammar, a string's escape state, and a finished token decoded by serde_json with its errors placed in the
//! whole text.

use crate::parse::MalformedJson;
use serde_json::Value;

/// How far the text has been read: bytes consumed, and serde_json's line and column after the last of them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Position {
    pub(super) offset: usize,
    pub(super) line: usize,
    pub(super) column: usize,
}

impl Position {
    pub(super) fn advance(&mut self, byte: u8) {
        self.offset += 1;
        if byte == b'\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
    }

    /// serde_json's (line, column) for an error at `byte`, the next one to read: the position just after it.
    pub(super) fn after(self, byte: u8) -> (usize, usize) {
        if byte == b'\n' {
            (self.line + 1, 0)
        } else {
            (self.line, self.column + 1)
        }
    }
}

/// Where a number token is in RFC 8259's grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Digits {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    Exponent,
}

impl Digits {
    pub(super) fn start(byte: u8) -> Option<Self> {
        match byte {
            b'-' => Some(Self::Minus),
            b'0' => Some(Self::Zero),
            b'1'..=b'9' => Some(Self::Int),
            _ => None,
        }
    }

    /// The state after `byte`, or `None` when `byte` does not continue the number.
    pub(super) fn next(self, byte: u8) -> Option<Self> {
        match (self, byte) {
            (Self::Minus, b'0') => Some(Self::Zero),
            (Self::Minus, b'1'..=b'9') | (Self::Int, b'0'..=b'9') => Some(Self::Int),
            (Self::Zero | Self::Int, b'.') => Some(Self::Dot),
            (Self::Dot | Self::Frac, b'0'..=b'9') => Some(Self::Frac),
            (Self::Zero | Self::Int | Self::Frac, b'e' | b'E') => Some(Self::Exp),
            (Self::Exp, b'+' | b'-') => Some(Self::ExpSign),
            (Self::Exp | Self::ExpSign | Self::Exponent, b'0'..=b'9') => Some(Self::Exponent),
            _ => None,
        }
    }

    /// Whether the number may end here (and the byte after it is not a digit after a lone `0`).
    pub(super) fn complete_before(self, byte: Option<u8>) -> bool {
        match self {
            Self::Zero => !matches!(byte, Some(b'0'..=b'9')),
            Self::Int | Self::Frac | Self::Exponent => true,
            Self::Minus | Self::Dot | Self::Exp | Self::ExpSign => false,
        }
    }
}

/// Where a string token is: in its text, after a backslash, or in a `\u` escape with this many hex digits to come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Escape {
    None,
    Backslash,
    Hex(u8),
}

/// serde_json's error for a broken token's bytes read alone, placed in the whole text.
pub(super) fn token_error(bytes: &[u8], start: Position) -> MalformedJson {
    match serde_json::from_slice::<Value>(bytes) {
        Err(err) => placed(&err, start),
        // Not reached: the token is broken. Said rather than hidden.
        Ok(_) => MalformedJson::from_reason(
            start.line,
            start.column + 1,
            "internal error: a broken token decoded",
            false,
        ),
    }
}

/// serde_json's error on a token read alone from `start`, at its place in the whole text.
pub(super) fn placed(err: &serde_json::Error, start: Position) -> MalformedJson {
    let (line, column) = if err.line() <= 1 {
        (start.line, start.column + err.column())
    } else {
        (start.line + err.line() - 1, err.column())
    };
    MalformedJson::from_serde_at(err, line, column)
}

/// The value of a number token (its bytes from `start`), ended by `after` (`None`: the text's end). A token that
/// may not end there is read with the byte that ended it, where serde_json finds it wrong.
pub(super) fn number(bytes: &[u8], start: Position, after: Option<u8>) -> Result<Value, MalformedJson> {
    let digits = bytes
        .iter()
        .skip(1)
        .try_fold(
            bytes.first().and_then(|&first| Digits::start(first)),
            |digits, &byte| Ok::<_, ()>(digits.and_then(|digits| digits.next(byte))),
        )
        .ok()
        .flatten();
    if digits.is_some_and(|digits| digits.complete_before(after)) {
        return serde_json::from_slice::<Value>(bytes).map_err(|err| placed(&err, start));
    }
    let read: Vec<u8> = bytes.iter().copied().chain(after).collect();
    match serde_json::from_slice::<Value>(&read) {
        Err(err) => Err(placed(&err, start)),
        Ok(_) => Err(token_error(&[], start)),
    }
}
