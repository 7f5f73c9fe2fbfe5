//! The work directory: the coordinator's whole state, in files.
//!
//! ```text
//! run.json            the run: game, rules, table depth, frontier, unit
//!                     budget (RunConfig, JSON)
//! units/<stem>.json   one UnitRecord a finished unit (stem: UnitKey::stem)
//! cancelled.jsonl     one UnitRecord a line for each unit stopped because
//!                     it became unnecessary (its verdict is meaningless;
//!                     its nodes and seconds are the work wasted)
//! partial.jsonl       one UnitRecord a line (`filled`, verdict `split`)
//!                     for each unit `kalah-dist simulate --fill` stopped
//!                     unanswered after `nodes` nodes: a schedule that
//!                     cancels it sooner needs no more of it (never read
//!                     by a solve)
//! ranks/<rank>.pid    the process id of each MPI rank of the latest run
//! ```
//!
//! Every unit file is written to `<stem>.json.tmp` and renamed over its
//! name: a reader (a resumed coordinator) sees a whole record or none
//! after any process is killed. The data is not synced (a sync a unit
//! would cap the coordinator at about a hundred answers a second): after a
//! machine crash a file may be empty or torn, and is then refused and its
//! unit asked again. A killed coordinator loses only the answers
//! it had not written; leftover `.tmp` files are ignored. A cancelled line
//! is appended with one write; a torn last line is skipped.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use kalah_solver::Rules;
use serde::{Deserialize, Serialize};

use crate::unit::{RunIdentity, UnitKey, UnitRecord};

/// The run a work directory belongs to (`run.json`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RunConfig {
    /// Format of this directory; 1.
    pub format: u32,
    #[serde(flatten)]
    pub identity: RunIdentity,
    /// Seeds a house at the start.
    pub seeds: usize,
    /// Sowings from the start to the frontier of the top tree.
    pub frontier: u32,
    /// Node budget of a unit (0: none).
    pub budget: u64,
    /// A test expected to hold is a unit up to this many sowings above the
    /// frontier ([`crate::plan::TopTree::cut_early`]). Absent (0) in the
    /// directories of runs made before it existed, which took every
    /// unit at the frontier.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut_early: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl RunConfig {
    /// The configuration in work directory `root`'s `run.json`, and the
    /// rules it names.
    ///
    /// # Errors
    /// A file that cannot be read or parsed, or rules no game has (the
    /// file named).
    pub fn read(root: &Path) -> Result<(RunConfig, Rules), String> {
        let path = root.join("run.json");
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let config: RunConfig =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let slug = &config.identity.rules;
        let rules = Rules::from_slug(slug)
            .ok_or_else(|| format!("{}: unknown rules {slug:?}", path.display()))?;
        Ok((config, rules))
    }
}

/// Why the work directory cannot be used.
#[derive(Debug)]
pub enum StoreError {
    Io {
        path: PathBuf,
        error: io::Error,
    },
    /// `run.json` is for another run.
    Mismatch {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    Parse {
        path: PathBuf,
        error: String,
    },
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            StoreError::Mismatch {
                path,
                found,
                wanted,
            } => write!(
                f,
                "{}: the work directory belongs to another run ({found}; this one is {wanted}): use another --work directory",
                path.display()
            ),
            StoreError::Parse { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for StoreError {}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |error| StoreError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// An open work directory.
pub struct WorkDir {
    root: PathBuf,
    config: RunConfig,
}

/// What a work directory held when opened.
pub struct Loaded {
    /// Every usable record, in no particular order.
    pub records: Vec<UnitRecord>,
    /// Units stopped as unnecessary.
    pub cancelled: Vec<UnitRecord>,
    /// Units a fill stopped unanswered (`partial.jsonl`).
    pub partial: Vec<UnitRecord>,
    /// Records refused, with why (naming the file).
    pub refused: Vec<String>,
}

impl WorkDir {
    /// Opens `root` for `config`, creating it (and `run.json`) when new.
    /// The frontier and the budget are part of the run: the same results
    /// replayed with another frontier would ask for other units.
    ///
    /// # Errors
    /// A directory that cannot be created or read, or one whose `run.json`
    /// names another game, rule set or table depth.
    pub fn open(root: &Path, config: &RunConfig) -> Result<WorkDir, StoreError> {
        let units = root.join("units");
        fs::create_dir_all(&units).map_err(io_err(&units))?;
        let path = root.join("run.json");
        match fs::read_to_string(&path) {
            Ok(text) => {
                let found: RunConfig =
                    serde_json::from_str(&text).map_err(|e| StoreError::Parse {
                        path: path.clone(),
                        error: e.to_string(),
                    })?;
                if &found != config {
                    return Err(StoreError::Mismatch {
                        path,
                        found: describe(&found),
                        wanted: describe(config),
                    });
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let text = serde_json::to_string_pretty(config).expect("plain struct");
                write_atomic(&path, text.as_bytes())?;
            }
            Err(e) => return Err(io_err(&path)(e)),
        }
        Ok(WorkDir {
            root: root.to_path_buf(),
            config: config.clone(),
        })
    }

    /// The run's configuration.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// Reads every record. A record that does not parse or does not match
    /// this run (houses, rules, table depth, its own key) is refused and
    /// named, never used.
    ///
    /// # Errors
    /// A directory that cannot be listed.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        let units = self.root.join("units");
        let mut loaded = Loaded {
            records: Vec::new(),
            cancelled: Vec::new(),
            partial: Vec::new(),
            refused: Vec::new(),
        };
        let mut names: Vec<PathBuf> = fs::read_dir(&units)
            .map_err(io_err(&units))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        for path in names {
            let parsed = fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<UnitRecord>(&t).map_err(|e| e.to_string()))
                .and_then(|r| {
                    let key = r.check(&self.config.identity)?;
                    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                    if stem != key.stem() {
                        return Err(format!("holds the result of {}", key.stem()));
                    }
                    Ok(r)
                });
            match parsed {
                Ok(r) => loaded.records.push(r),
                Err(e) => loaded.refused.push(format!("{}: {e}", path.display())),
            }
        }
        loaded.cancelled = self.lines("cancelled.jsonl")?;
        loaded.partial = self.lines("partial.jsonl")?;
        Ok(loaded)
    }

    /// The records of a file of lines that fit this run (a torn or
    /// foreign line is skipped); none when it does not exist.
    fn lines(&self, name: &str) -> Result<Vec<UnitRecord>, StoreError> {
        let path = self.root.join(name);
        match fs::read_to_string(&path) {
            Ok(text) => Ok(text
                .lines()
                .filter_map(|l| serde_json::from_str::<UnitRecord>(l).ok())
                .filter(|r| r.check(&self.config.identity).is_ok())
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Stores a finished unit (atomically: temp file, rename).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, key: &UnitKey, record: &UnitRecord) -> Result<(), StoreError> {
        let path = self.root.join("units").join(format!("{}.json", key.stem()));
        let text = serde_json::to_string_pretty(record).expect("plain struct");
        write_atomic(&path, text.as_bytes())
    }

    /// Appends a cancelled unit's line to `cancelled.jsonl`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append_cancelled(&self, record: &UnitRecord) -> Result<(), StoreError> {
        self.append("cancelled.jsonl", record)
    }

    /// Appends a unit a fill stopped unanswered to `partial.jsonl`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append_partial(&self, record: &UnitRecord) -> Result<(), StoreError> {
        self.append("partial.jsonl", record)
    }

    fn append(&self, name: &str, record: &UnitRecord) -> Result<(), StoreError> {
        let path = self.root.join(name);
        let mut line = serde_json::to_string(record).expect("plain struct");
        line.push('\n');
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(io_err(&path))
    }
}

fn describe(c: &RunConfig) -> String {
    format!(
        "Kalah({},{}), rules {}, tables of {} seeds, frontier {}, cut nodes {} above it, unit budget {}",
        c.identity.pits,
        c.seeds,
        c.identity.rules,
        c.identity.table_seeds,
        c.frontier,
        c.cut_early,
        c.budget
    )
}

/// Writes `bytes` to `path` through `path.tmp`, then renamed.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))
}
