//! E-mail addresses: `email` (RFC 5321 section 4.1.2 `Mailbox`) and `idn-email` (RFC 6531, which admits UTF-8 in
//! the local part and internationalized domain names).
//!
//! The local part is a dot-string or a quoted string of at most 64 octets; the domain is a host name (or, for
//! `idn-email`, an internationalized one) or an address literal `[IPv4]` / `[IPv6:...]`. Display names, comments
//! and lists of addresses are not addresses.

use super::hostname::{is_hostname, is_idn_hostname};
use super::ip::{is_ipv4, is_ipv6};

/// The longest local part in octets.
const MAX_LOCAL_PART: usize = 64;

/// An ASCII mailbox.
pub(super) fn is_email(text: &str) -> bool {
    is_mailbox(text, false)
}

/// A mailbox that may hold UTF-8 in its local part and domain.
pub(super) fn is_idn_email(text: &str) -> bool {
    is_mailbox(text, true)
}

fn is_mailbox(text: &str, international: bool) -> bool {
    let Some(at) = text.rfind('@') else { return false };
    let (local, domain) = (&text[..at], &text[at + 1..]);
    if local.is_empty() || local.len() > MAX_LOCAL_PART || !is_local_part(local, international) {
        return false;
    }
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.strip_prefix("IPv6:") {
            Some(address) => is_ipv6(address),
            None => is_ipv4(literal),
        };
    }
    if international {
        is_idn_hostname(domain)
    } else {
        is_hostname(domain)
    }
}

fn is_local_part(local: &str, international: bool) -> bool {
    if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        return is_quoted_content(quoted, international);
    }
    local
        .split('.')
        .all(|atom| !atom.is_empty() && atom.chars().all(|c| is_atext(c, international)))
}

/// RFC 5321 `atext`, plus any non-ASCII character for RFC 6531.
fn is_atext(c: char, international: bool) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (international && !c.is_ascii())
}

/// `*( qtextSMTP / quoted-pairSMTP )`: printable ASCII but `"` and `\`, or `\` before any printable character.
fn is_quoted_content(quoted: &str, international: bool) -> bool {
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        let ok = match c {
            '\\' => chars.next().is_some_and(|escaped| matches!(escaped, ' '..='~')),
            '"' => false,
            ' '..='~' => true,
            _ => international && !c.is_ascii(),
        };
        if !ok {
            return false;
        }
    }
    true
}
