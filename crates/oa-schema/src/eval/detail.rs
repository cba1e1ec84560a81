//! What a violation says beyond its keyword ([`Detail`]), and the decimal writer its messages use: built only
//! on the error path.

use crate::types::TypeSet;

/// What a violation says beyond its keyword: built only on the error path.
#[derive(Debug)]
pub(crate) struct Detail<'a> {
    /// The message after `keyword: ` (take the buffer from [`Evaluator::message_buffer`](super::Evaluator::message_buffer) to reuse its allocation),
    /// continued by `parts`.
    pub(crate) message: String,
    /// The rest of the message, copied straight into the violation (see [`Detail::parts`]).
    pub(crate) parts: &'a [&'a str],
    pub(crate) expected_types: TypeSet,
    pub(crate) missing_property: Option<&'a str>,
    /// A further instance step (the missing or rejected property, the rejected item).
    pub(crate) extra: Option<Extra<'a>>,
}

/// An instance step appended to a violation's location.
#[derive(Debug)]
pub(crate) enum Extra<'a> {
    /// A member name.
    Key(&'a str),
    /// An array index.
    Index(usize),
}

impl<'a> Detail<'a> {
    /// A plain message.
    pub(crate) fn message(message: String) -> Self {
        Self {
            message,
            parts: &[],
            expected_types: TypeSet::default(),
            missing_property: None,
            extra: None,
        }
    }

    /// A message of borrowed parts, written into the violation's text without a buffer of its own (the message
    /// buffer is for messages built piece by piece).
    pub(crate) fn parts(parts: &'a [&'a str]) -> Self {
        Self {
            message: String::new(),
            parts,
            expected_types: TypeSet::default(),
            missing_property: None,
            extra: None,
        }
    }
}

/// Appends an index or a count in decimal (see [`push_count`]).
pub(crate) fn push_usize(out: &mut String, count: usize) {
    push_count(out, u64::try_from(count).unwrap_or(u64::MAX));
}

/// Appends a count in decimal, without the formatting machinery (messages name limits such as `maxLength`).
pub(crate) fn push_count(out: &mut String, count: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = count;
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
    for digit in &digits[start..] {
        out.push(char::from(*digit));
    }
}
