//! Where the endgame tables live: the table directory a front end's
//! request names, resolved, and made sure of before tables are read or
//! written.
//!
//! The directory is, first found first:
//! 1. the one the request names (`--tables DIR`);
//! 2. the environment variable `KALAH_TABLES` (as `SYZYGY_PATH` is for chess
//!    tools), so every command of a shell session shares one set of tables;
//! 3. the `tables/` directory of the source tree the binary was built from,
//!    while that tree exists (a clone keeps its tables beside its code, and
//!    deleting the clone deletes them); the path is the same from every
//!    working directory;
//! 4. otherwise the per-user data directory,
//!    `$XDG_DATA_HOME/kalah/tables` (`~/.local/share/kalah/tables`).
//!
//! Only the default directory (3 or 4) is created when missing, and the
//! front end is told when it is ([`TableDir::ensure`]). A directory named
//! by the flag or the variable must exist already (except for `kalah
//! build`, whose job is to fill one): a mistyped path is an error, not a
//! new 500 MB directory.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::{Error, Observer};

/// The environment variable that names the table directory.
pub const ENV_VAR: &str = "KALAH_TABLES";

/// The table directory of the source tree this binary was built from.
const SOURCE_TREE_TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tables");

/// How the table directory was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirSource {
    /// `--tables DIR`.
    Flag,
    /// `$KALAH_TABLES`.
    Env,
    /// The source tree's `tables/`.
    SourceTree,
    /// The per-user data directory.
    User,
}

impl DirSource {
    /// How to say it in a listing.
    pub fn describe(self) -> &'static str {
        match self {
            DirSource::Flag => "from --tables",
            DirSource::Env => "from $KALAH_TABLES",
            DirSource::SourceTree => "default: the source tree's tables/",
            DirSource::User => "default: the per-user data directory",
        }
    }

    /// Whether this is a default location (created when missing).
    pub fn is_default(self) -> bool {
        matches!(self, DirSource::SourceTree | DirSource::User)
    }
}

/// A resolved table directory.
#[derive(Clone, Debug)]
pub struct TableDir {
    /// Where it is.
    pub path: PathBuf,
    /// How it was chosen.
    pub source: DirSource,
}

/// The table directory for `flag` (the value of `--tables`, if given),
/// looking at `KALAH_TABLES` and the defaults as the module documentation
/// says. Creates nothing.
pub fn resolve(flag: Option<&Path>) -> TableDir {
    resolve_with(
        flag,
        std::env::var_os(ENV_VAR),
        std::env::var_os("XDG_DATA_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`resolve`] with the environment passed in (for tests).
fn resolve_with(
    flag: Option<&Path>,
    env: Option<OsString>,
    xdg_data_home: Option<OsString>,
    home: Option<OsString>,
) -> TableDir {
    if let Some(p) = flag {
        return TableDir {
            path: p.to_path_buf(),
            source: DirSource::Flag,
        };
    }
    if let Some(p) = env.filter(|p| !p.is_empty()) {
        return TableDir {
            path: PathBuf::from(p),
            source: DirSource::Env,
        };
    }
    let tree = Path::new(SOURCE_TREE_TABLES);
    if tree
        .parent()
        .is_some_and(|root| root.join("Cargo.toml").is_file())
    {
        return TableDir {
            path: tree.to_path_buf(),
            source: DirSource::SourceTree,
        };
    }
    let data = xdg_data_home
        .filter(|p| Path::new(p).is_absolute())
        .map(PathBuf::from)
        .or_else(|| {
            home.filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        });
    let path = match data {
        Some(d) => d.join("kalah").join("tables"),
        // No home directory at all: the working directory is all there is.
        None => PathBuf::from("tables"),
    };
    TableDir {
        path,
        source: DirSource::User,
    }
}

impl TableDir {
    /// Makes sure the directory exists before tables are written into it:
    /// a default location is created (telling `observer` first); a
    /// directory named by the flag or the variable is created only when
    /// `create` says so (`kalah build`), else its absence is an input
    /// error.
    ///
    /// # Errors
    /// A missing directory that may not be created, or one that cannot be.
    pub fn ensure(&self, create: bool, observer: &dyn Observer) -> Result<(), Error> {
        if self.path.exists() || !(create || self.source.is_default()) {
            return self.existing();
        }
        observer.note(&format!("creating table directory {}", self.path.display()));
        fs::create_dir_all(&self.path).map_err(|e| {
            Error::Failure(format!(
                "cannot create table directory {}: {e}",
                self.path.display()
            ))
        })
    }

    /// Makes sure the directory is there already, for commands that only
    /// read or remove tables.
    ///
    /// # Errors
    /// A path that is missing or not a directory (input).
    pub fn existing(&self) -> Result<(), Error> {
        if self.path.is_dir() {
            return Ok(());
        }
        Err(Error::Input(if self.path.exists() {
            format!("table directory {} is not a directory", self.path.display())
        } else {
            format!(
                "table directory {} ({}) does not exist; create it first, or use `kalah build --tables {}`",
                self.path.display(),
                self.source.describe(),
                self.path.display()
            )
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_variable_then_a_default() {
        let d = resolve_with(Some(Path::new("/x")), Some("/y".into()), None, None);
        assert_eq!((d.path, d.source), (PathBuf::from("/x"), DirSource::Flag));
        let d = resolve_with(None, Some("/y".into()), None, None);
        assert_eq!((d.path, d.source), (PathBuf::from("/y"), DirSource::Env));
        // An empty variable is as good as none.
        let d = resolve_with(None, Some("".into()), None, None);
        assert!(d.source.is_default());
        // This test binary was built from a source tree that exists.
        assert_eq!(d.source, DirSource::SourceTree);
        assert!(d.path.is_absolute() && d.path.ends_with("tables"));
    }
}
