//! The §5.5.5 truncation contract: a per-attribute byte cap, a marker naming the full size, cut on a UTF-8
//! boundary.

/// The default cap per payload attribute (64 KiB).
pub const DEFAULT_PAYLOAD_CAP: usize = 65_536;
/// The smallest cap an observer accepts.
pub const MIN_PAYLOAD_CAP: usize = 256;

/// `value` if it fits in `cap` bytes, else its longest prefix on a code-point boundary followed by
/// `…[truncated, M bytes total]`, the whole at most `cap` bytes.
pub fn truncate(value: &str, cap: usize) -> String {
    if value.len() <= cap {
        return value.to_owned();
    }
    let marker = format!("…[truncated, {} bytes total]", value.len());
    let mut end = cap.saturating_sub(marker.len()).min(value.len());
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let mut truncated = String::with_capacity(end + marker.len());
    truncated.push_str(&value[..end]);
    truncated.push_str(&marker);
    truncated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_pass_and_long_ones_fit_the_cap_with_the_marker() {
        assert_eq!(truncate("abc", 256), "abc");
        let long = "x".repeat(1000);
        let cut = truncate(&long, 256);
        assert_eq!(cut.len(), 256);
        assert!(cut.ends_with("…[truncated, 1000 bytes total]"));
    }

    #[test]
    fn cuts_back_to_a_code_point_boundary() {
        let long = "é".repeat(500); // two bytes each
        let cut = truncate(&long, 257);
        assert!(cut.len() <= 257);
        assert!(cut.ends_with("…[truncated, 1000 bytes total]"));
        let prefix = cut.trim_end_matches("…[truncated, 1000 bytes total]");
        assert!(prefix.chars().all(|c| c == 'é'));
    }
}
