//! Picking one variant's payloads out of a list of enum values (events, records), the filter every test of a
//! captured stream writes.

/// The payloads of the entries of `items` that are `Variant(payload)`, borrowed and in order, as a `Vec`.
///
/// ```
/// enum Event {
///     Token(&'static str),
///     Done(u32),
/// }
/// let events = [Event::Token("a"), Event::Done(1), Event::Token("b")];
/// let tokens: Vec<&&str> = oa_testkit::variants!(events, Event::Token);
/// assert_eq!(tokens, [&"a", &"b"]);
/// assert_eq!(oa_testkit::variants!(events, Event::Done), [&1]);
/// ```
#[macro_export]
macro_rules! variants {
    ($items:expr, $variant:path) => {
        $items
            .iter()
            .filter_map(|item| match item {
                $variant(payload) => Some(payload),
                #[allow(unreachable_patterns)]
                _ => None,
            })
            .collect::<::std::vec::Vec<_>>()
    };
}
