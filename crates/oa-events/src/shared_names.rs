//! Names that repeat from call to call (the provider and the model), kept as shared strings per delivery queue:
//! each attempt record takes a reference count instead of a copy of its own, and an observer that renders them (a
//! span attribute) shares the same string again.

use std::sync::{Arc, Mutex};

/// How many distinct names are kept; past that, names are copied per record as before (bounded memory whatever
/// the application sends).
const CAPACITY: usize = 16;

/// The shared names of one queue.
#[derive(Debug, Default)]
pub(crate) struct SharedNames {
    names: Mutex<Vec<Arc<str>>>,
}

impl SharedNames {
    /// `text` as a shared string: the kept one when `text` was seen before, else a new one (kept while there is
    /// room).
    pub(crate) fn get(&self, text: &str) -> Arc<str> {
        let Ok(mut names) = self.names.lock() else {
            return Arc::from(text);
        };
        if let Some(name) = names.iter().find(|name| ***name == *text) {
            return Arc::clone(name);
        }
        let name: Arc<str> = Arc::from(text);
        if names.len() < CAPACITY {
            names.push(Arc::clone(&name));
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_name_is_the_kept_one_and_the_kept_ones_stay_bounded() {
        let shared = SharedNames::default();
        let first = shared.get("gpt-4o-mini");
        assert_eq!(&*first, "gpt-4o-mini");
        assert!(Arc::ptr_eq(&first, &shared.get("gpt-4o-mini")));
        assert_eq!(shared.names.lock().unwrap().len(), 1);
        for n in 0..100 {
            assert_eq!(&*shared.get(&format!("model-{n}")), format!("model-{n}"));
        }
        assert_eq!(shared.names.lock().unwrap().len(), CAPACITY);
        // Past the capacity a name is still right, only not kept.
        let late = shared.get("model-99");
        assert!(!Arc::ptr_eq(&late, &shared.get("model-99")));
        assert!(Arc::ptr_eq(&first, &shared.get("gpt-4o-mini")));
    }
}
