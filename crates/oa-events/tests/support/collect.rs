//! An observer that collects every event, shared by oa-events' and oa-observe's tests (oa-observe includes this
//! file by `#[path]`: oa-testkit cannot hold it, since oa-events depends on oa-testkit).

use std::sync::Mutex;

use async_trait::async_trait;
use oa_events::{Event, Observer, ObserverError};

/// Collects every event it is given.
#[derive(Default)]
pub struct Collect(pub Mutex<Vec<Event>>);

#[async_trait]
impl Observer for Collect {
    async fn on_event(&self, event: &Event) -> Result<(), ObserverError> {
        self.0.lock().unwrap().push(event.clone());
        Ok(())
    }
}

impl Collect {
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().clone()
    }
}
