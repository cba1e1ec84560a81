//! URI Templates (`uri-template`, RFC 6570 section 2): literals and `{operator varspec,...}` expressions.
//!
//! The apostrophe is accepted in literals, as RFC 6570 erratum 6937 and the JSON Schema suite have it.

/// Whether `text` is a URI Template of any level.
pub(super) fn is_uri_template(text: &str) -> bool {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let Some(end) = rest.find('}') else { return false };
            if !is_expression(&rest[1..end]) {
                return false;
            }
            rest = &rest[end + 1..];
        } else if c == '%' {
            if !is_pct_encoded(rest) {
                return false;
            }
            rest = &rest[3..];
        } else if is_literal(c) {
            rest = &rest[c.len_utf8()..];
        } else {
            return false;
        }
    }
    true
}

fn is_literal(c: char) -> bool {
    match c {
        '\u{21}'
        | '\u{23}'..='\u{24}'
        | '\u{26}'..='\u{3B}'
        | '\u{3D}'
        | '\u{3F}'..='\u{5B}'
        | '\u{5D}'
        | '\u{5F}' => true,
        '\u{61}'..='\u{7A}' | '\u{7E}' => true,
        _ => u32::from(c) >= 0xA0 && !matches!(u32::from(c), 0xD800..=0xDFFF),
    }
}

fn is_pct_encoded(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3 && bytes[0] == b'%' && bytes[1].is_ascii_hexdigit() && bytes[2].is_ascii_hexdigit()
}

/// The inside of `{...}`: an optional operator, then `varspec *( "," varspec )`.
fn is_expression(body: &str) -> bool {
    let body = body
        .strip_prefix(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'])
        .unwrap_or(body);
    !body.is_empty() && body.split(',').all(is_varspec)
}

/// `varname [ ":" max-length / "*" ]`, `max-length` 1 to 9999 without leading zeros.
fn is_varspec(spec: &str) -> bool {
    let (name, modifier) = match spec.find([':', '*']) {
        Some(idx) => spec.split_at(idx),
        None => (spec, ""),
    };
    let modifier_ok = match modifier.as_bytes() {
        [] | [b'*'] => true,
        [b':', first, rest @ ..] => {
            (b'1'..=b'9').contains(first) && rest.len() <= 3 && rest.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    };
    modifier_ok && is_varname(name)
}

/// `varchar *( ["."] varchar )`, `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn is_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut idx = 0;
    let mut previous_was_dot = true; // a name may not start with a dot
    while idx < bytes.len() {
        match bytes[idx] {
            b'.' if !previous_was_dot => {
                previous_was_dot = true;
                idx += 1;
                continue;
            }
            b'%' if is_pct_encoded(&name[idx..]) => idx += 3,
            byte if byte.is_ascii_alphanumeric() || byte == b'_' => idx += 1,
            _ => return false,
        }
        previous_was_dot = false;
    }
    !bytes.is_empty() && !previous_was_dot
}
