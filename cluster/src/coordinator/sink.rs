//! Where answers go: the work directory (a real run) or nowhere.

use crate::store::WorkDir;
use crate::unit::{UnitKey, UnitRecord};

/// Where answers go: the work directory (a real run) or nowhere (a
/// simulation).
pub trait Sink {
    fn answered(&mut self, key: &UnitKey, record: &UnitRecord) -> Result<(), String>;
    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), String>;
}

impl Sink for WorkDir {
    fn answered(&mut self, key: &UnitKey, record: &UnitRecord) -> Result<(), String> {
        self.write(key, record).map_err(|e| e.to_string())
    }

    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), String> {
        self.append_cancelled(record).map_err(|e| e.to_string())
    }
}

/// A sink that keeps nothing.
pub struct Discard;

impl Sink for Discard {
    fn answered(&mut self, _: &UnitKey, _: &UnitRecord) -> Result<(), String> {
        Ok(())
    }

    fn cancelled(&mut self, _: &UnitRecord) -> Result<(), String> {
        Ok(())
    }
}
