//! Punycode (RFC 3492), the encoding of IDNA A-labels after their `xn--` prefix.
//!
//! Both directions work on whole labels and stop at the first overflow or bad digit, returning `None`; the work is
//! bounded by the label's length (callers pass labels of at most a few hundred characters).

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 0x80;

/// Decodes the part of an A-label after `xn--`; `None` when it is not valid Punycode.
pub(super) fn decode(input: &str) -> Option<Vec<char>> {
    if !input.is_ascii() {
        return None;
    }
    let (basic, extended) = match input.rfind('-') {
        Some(idx) => (&input[..idx], &input[idx + 1..]),
        None => ("", input),
    };
    let mut output: Vec<char> = basic.chars().collect();
    let mut n = INITIAL_N;
    let mut i: u32 = 0;
    let mut bias = INITIAL_BIAS;
    let mut digits = extended.bytes().peekable();
    while digits.peek().is_some() {
        let old_i = i;
        let mut weight: u32 = 1;
        let mut k = BASE;
        loop {
            let digit = decode_digit(digits.next()?)?;
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let threshold = threshold(k, bias);
            if digit < threshold {
                break;
            }
            weight = weight.checked_mul(BASE - threshold)?;
            k += BASE;
        }
        let length = u32::try_from(output.len() + 1).ok()?;
        bias = adapt(i - old_i, length, old_i == 0);
        n = n.checked_add(i / length)?;
        i %= length;
        let c = char::from_u32(n)?;
        if n < INITIAL_N {
            return None;
        }
        output.insert(usize::try_from(i).ok()?, c);
        i += 1;
    }
    Some(output)
}

/// Encodes a label's code points (the part after `xn--`); `None` on overflow.
pub(super) fn encode(input: &[char]) -> Option<String> {
    let mut output: String = input.iter().filter(|c| c.is_ascii()).collect();
    let n_basic = u32::try_from(output.len()).ok()?;
    if n_basic > 0 {
        output.push('-');
    }
    let total = u32::try_from(input.len()).ok()?;
    let mut n = INITIAL_N;
    let mut delta: u32 = 0;
    let mut bias = INITIAL_BIAS;
    let mut handled = n_basic;
    while handled < total {
        let m = input.iter().map(|&c| u32::from(c)).filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in input {
            let c = u32::from(c);
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let threshold = threshold(k, bias);
                    if q < threshold {
                        break;
                    }
                    output.push(encode_digit(threshold + (q - threshold) % (BASE - threshold)));
                    q = (q - threshold) / (BASE - threshold);
                    k += BASE;
                }
                output.push(encode_digit(q));
                bias = adapt(delta, handled + 1, handled == n_basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(output)
}

fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        T_MIN
    } else if k >= bias + T_MAX {
        T_MAX
    } else {
        k - bias
    }
}

fn adapt(delta: u32, n_points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / n_points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (((BASE - T_MIN + 1) * delta) / (delta + SKEW))
}

fn decode_digit(byte: u8) -> Option<u32> {
    match byte {
        b'a'..=b'z' => Some(u32::from(byte - b'a')),
        b'A'..=b'Z' => Some(u32::from(byte - b'A')),
        b'0'..=b'9' => Some(u32::from(byte - b'0') + 26),
        _ => None,
    }
}

fn encode_digit(digit: u32) -> char {
    match digit {
        0..=25 => char::from(b'a' + digit as u8),
        _ => char::from(b'0' + (digit - 26) as u8),
    }
}
