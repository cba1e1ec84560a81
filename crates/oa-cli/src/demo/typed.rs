//! The demo's schema as a Rust type, so the recovered value is shown the way an application reads it
//! (`Response::parsed_as`). The field names follow the schema's, spaces included.

use serde::Deserialize;

/// An extracted event.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read through Debug: the demo prints the value
pub(super) struct Event {
    pub(super) title: String,
    pub(super) starts_at: String,
    pub(super) site: Site,
    pub(super) attendees: Vec<Attendee>,
    pub(super) status: Option<Status>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read through Debug
pub(super) struct Site {
    pub(super) name: String,
    pub(super) lat: f64,
    pub(super) lon: f64,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read through Debug
pub(super) struct Attendee {
    #[serde(rename = "first name")]
    pub(super) first_name: String,
    pub(super) role: Role,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Role {
    Speaker,
    Guest,
    Host,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Status {
    Confirmed,
    Tentative,
}
