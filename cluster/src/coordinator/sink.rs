//! Where answers go: the work directory (a real run) or nowhere.

use crate::error::ClusterError;
use crate::store::WorkDir;
use crate::unit::{UnitKey, UnitRecord};

/// Where answers go: the work directory (a real run) or nowhere (a
/// simulation).
pub trait Sink {
    fn answered(&mut self, key: &UnitKey, record: &UnitRecord) -> Result<(), ClusterError>;
    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), ClusterError>;
}

impl Sink for WorkDir {
    fn answered(&mut self, key: &UnitKey, record: &UnitRecord) -> Result<(), ClusterError> {
        Ok(self.write(key, record)?)
    }

    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), ClusterError> {
        Ok(self.append_cancelled(record)?)
    }
}

/// A sink that keeps nothing.
pub struct Discard;

impl Sink for Discard {
    fn answered(&mut self, _: &UnitKey, _: &UnitRecord) -> Result<(), ClusterError> {
        Ok(())
    }

    fn cancelled(&mut self, _: &UnitRecord) -> Result<(), ClusterError> {
        Ok(())
    }
}
