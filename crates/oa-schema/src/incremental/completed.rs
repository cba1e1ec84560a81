//! Completed values with their pointers: each value the push parser completes (a scalar at its last byte, an array
//! or object at its close), copied out with the JSON Pointer where it sits, for a caller that shows the document
//! while it is written. Only when asked ([`Incremental::with_completed_values`](super::Incremental)) and only
//! while the document's value is kept: the copy is taken from the value the parser builds anyway.

use super::push::Frame;
use oa_pointer::Location;
use serde_json::Value;

/// A value the text has completed, at its place in the document (see
/// [`Incremental::take_completed`](crate::Incremental::take_completed)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CompletedValue {
    /// Where the value sits in the document (the root is the empty pointer).
    pub pointer: Location,
    /// The value, whole: a scalar, or an array or object with all its members.
    pub value: Value,
}

/// The completed values not yet taken, in the order they completed (document order of their ends: a container
/// after its members).
#[derive(Debug, Default)]
pub(crate) struct CompletedValues {
    ready: Vec<CompletedValue>,
}

impl CompletedValues {
    /// `value` is complete inside the open containers `stack` (outermost first): its pointer is their open
    /// members' names and indexes.
    pub(super) fn record(&mut self, stack: &[Frame], value: &Value) {
        let mut pointer = Location::root();
        for frame in stack {
            match frame {
                Frame::Array(items) => pointer.push_index(items.len()),
                Frame::Object(_, Some(name)) => pointer.push_key(name),
                // Not reached while the value is kept (every frame is kept then); a value without its place is
                // not handed over.
                Frame::Object(_, None) | Frame::PassingArray | Frame::PassingObject(_) => return,
            }
        }
        self.ready.push(CompletedValue {
            pointer,
            value: value.clone(),
        });
    }

    /// The values completed since the last call.
    pub(super) fn take(&mut self) -> Vec<CompletedValue> {
        std::mem::take(&mut self.ready)
    }
}
