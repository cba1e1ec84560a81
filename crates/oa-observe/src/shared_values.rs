//! Attribute values that repeat from span to span (the provider and model names), kept as shared strings: each
//! span takes a reference count instead of a copy of its own.

use std::sync::{Arc, Mutex};

use opentelemetry::StringValue;

/// How many distinct values are kept; past that, values are copied per span as before (bounded memory whatever
/// the application sends).
const CAPACITY: usize = 16;

/// The shared strings of one observer.
#[derive(Debug, Default)]
pub(crate) struct SharedValues {
    values: Mutex<Vec<Arc<str>>>,
}

impl SharedValues {
    /// `text` as an attribute value: the kept string when `text` was seen before, else a new one (kept while
    /// there is room).
    pub(crate) fn get(&self, text: &str) -> StringValue {
        let Ok(mut values) = self.values.lock() else {
            return StringValue::from(text.to_owned());
        };
        if let Some(value) = values.iter().find(|value| ***value == *text) {
            return StringValue::from(Arc::clone(value));
        }
        let value: Arc<str> = Arc::from(text);
        if values.len() < CAPACITY {
            values.push(Arc::clone(&value));
        }
        StringValue::from(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_value_is_the_kept_one_and_the_kept_ones_stay_bounded() {
        let shared = SharedValues::default();
        assert_eq!(shared.get("gpt-4o-mini").as_str(), "gpt-4o-mini");
        assert_eq!(shared.get("gpt-4o-mini").as_str(), "gpt-4o-mini");
        assert_eq!(shared.values.lock().unwrap().len(), 1);
        // The kept string is the one handed out: two spans' values share it.
        let kept = Arc::clone(&shared.values.lock().unwrap()[0]);
        let before = Arc::strong_count(&kept);
        let value = shared.get("gpt-4o-mini");
        assert_eq!(Arc::strong_count(&kept), before + 1);
        drop(value);
        for n in 0..100 {
            assert_eq!(shared.get(&format!("model-{n}")).as_str(), format!("model-{n}"));
        }
        assert_eq!(shared.values.lock().unwrap().len(), CAPACITY);
    }
}
