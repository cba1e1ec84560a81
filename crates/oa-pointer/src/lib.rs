//! oa-pointer: RFC 6901 JSON Pointer in plain and URI-fragment forms.
//!
//! Two types name a place inside a JSON document:
//!
//! - [`JsonPointer`] is the owned value type: parse it from the plain form (`/a~1b/0`) or the URI-fragment form
//!   (`#/a~1b/0`, RFC 6901 §6), format it back to either, edit it token by token, and resolve it against a
//!   [`serde_json::Value`] with [`get`](JsonPointer::get), [`get_mut`](JsonPointer::get_mut) or
//!   [`resolve`](JsonPointer::resolve), whose [`ResolveError`] names the longest prefix that exists.
//! - [`Location`] is the cheap type for hot paths: it keeps the escaped plain form in one growable string, so a
//!   walker can [`push_key`](Location::push_key), [`push_index`](Location::push_index) and
//!   [`pop`](Location::pop) without allocating per step, and turn it into a [`JsonPointer`] only when needed.
//!
//! Both order array indices numerically (`/a/2` < `/a/10`), keys by code point, and a prefix before its
//! extensions; both hash consistently with equality and serialize as their plain-form string.
//!
//! # Example
//!
//! ```
//! use oa_pointer::{JsonPointer, Location};
//! use serde_json::json;
//!
//! let doc = json!({"first name": ["Ada", "Grace"]});
//! let pointer = JsonPointer::parse_fragment("#/first%20name/1")?;
//! assert_eq!(pointer.get(&doc), Some(&json!("Grace")));
//! assert_eq!(pointer.to_string(), "/first name/1");
//!
//! let mut location = Location::root();
//! location.push_key("first name");
//! location.push_index(1);
//! assert_eq!(location.to_pointer(), pointer);
//! assert_eq!(location.to_fragment(), "#/first%20name/1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod escape;
mod fragment;
mod location;
mod order;
mod parse;
mod pointer;
mod resolve;

pub use error::{ParseError, ResolveError, ScalarKind};
pub use location::{Location, Segment};
pub use pointer::JsonPointer;

/// Runs the README's example as a doc test, so the README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
