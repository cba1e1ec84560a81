//! `format` assertions: one checker per format name, used only when format assertion is on.
//!
//! Each checker follows its RFC (see the submodules); names we do not know return `None` and stay annotations,
//! as draft 2020-12 says. Every checker runs in time linear in the string's length (the IDNA checks are linear
//! per label) and never panics, whatever the input.

mod date_time;
mod email;
mod hostname;
mod idna;
mod ip;
mod pointer;
mod punycode;
mod uri;
mod uri_template;
mod uuid;

/// A format checker: whether a string is valid for the format. Non-strings are always valid.
pub(crate) type FormatCheck = fn(&str) -> bool;

/// The checker for a format name, or `None` for a name we do not assert (it stays an annotation).
pub(crate) fn checker(name: &str) -> Option<FormatCheck> {
    let check: FormatCheck = match name {
        "date-time" => date_time::is_date_time,
        "date" => date_time::is_date,
        "time" => date_time::is_time,
        "duration" => date_time::is_duration,
        "email" => email::is_email,
        "idn-email" => email::is_idn_email,
        "hostname" => hostname::is_hostname,
        "idn-hostname" => hostname::is_idn_hostname,
        "ipv4" => ip::is_ipv4,
        "ipv6" => ip::is_ipv6,
        "uri" => uri::is_uri,
        "uri-reference" => uri::is_uri_reference,
        "iri" => uri::is_iri,
        "iri-reference" => uri::is_iri_reference,
        "uri-template" => uri_template::is_uri_template,
        "uuid" => uuid::is_uuid,
        "json-pointer" => pointer::is_json_pointer,
        "relative-json-pointer" => pointer::is_relative_json_pointer,
        "regex" => crate::ecma_regex::is_valid_pattern,
        _ => return None,
    };
    Some(check)
}

#[cfg(test)]
pub(crate) mod suite;

#[cfg(test)]
mod tests;
