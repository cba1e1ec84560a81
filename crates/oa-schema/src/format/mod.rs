//! `format` assertions: one checker per format name, used only when format assertion is on.
//!
//! INTERFACE STUB — owned by the numbers/formats/regex work, which adds a module per format (date-time, date, time,
//! duration, email, idn-email, hostname, idn-hostname, ipv4, ipv6, uri, uri-reference, iri, iri-reference,
//! uri-template, uuid, json-pointer, relative-json-pointer, regex) and keeps this signature.

/// A format checker: whether a string is valid for the format. Non-strings are always valid.
pub(crate) type FormatCheck = fn(&str) -> bool;

/// The checker for a format name, or `None` for a name we do not assert (it stays an annotation).
pub(crate) fn checker(name: &str) -> Option<FormatCheck> {
    let _ = name;
    None
}
