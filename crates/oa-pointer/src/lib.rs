#![doc = include_str!("../README.md")]

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
