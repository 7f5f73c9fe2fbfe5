//! The work directory: the coordinator's whole state, in files.
//!
//! ```text
//! run.json              the run: game, rules, table depth of the latest
//!                       stretch, frontier, unit budget (RunConfig, JSON)
//! lock                  held (an advisory lock, `File::try_lock`) by the
//!                       one process that runs on the directory; the file
//!                       itself stays
//! units/<stem>.json     one UnitRecord a finished unit (stem:
//!                       UnitKey::stem), written since the last pack
//! cancelled.jsonl       one UnitRecord a line for each unit stopped
//!                       because it became unnecessary (its verdict is
//!                       meaningless; its nodes and seconds are the work
//!                       wasted), since the last pack
//! segments/<n>.jsonl.gz sealed records of earlier stretches, packed
//!                       ([`WorkDir::pack`]): gzip of one UnitRecord a line,
//!                       answered units and cancelled ones (`stopped` set);
//!                       numbered 000001, 000002, ... and never rewritten,
//!                       so a repository that carries a long run adds one
//!                       small file at each stop
//! partial.jsonl         one UnitRecord a line (`filled`, verdict `split`)
//!                       for each unit `kalah-lab simulate --fill` stopped
//!                       unanswered after `nodes` nodes (never read by a
//!                       solve)
//! ranks/<rank>.pid      the process id of each MPI rank of the latest run
//! ```
//!
//! Every record carries its checksum ([`UnitRecord::seal`]) and the game it
//! belongs to; one that fails either, or does not parse, is refused (named
//! on stderr) and its unit asked again: a record is never believed on its
//! own word. What a checksum cannot catch, a verdict changed and its
//! checksum recomputed, the certificate's check does (`kalah certify`).
//!
//! Every unit file is written to a temporary name of its own
//! (`<stem>.json.<pid>.<n>.tmp`), synced, renamed over its name, and the
//! directory synced: after `kill -9` or a power cut a reader sees a whole
//! record or none. A killed coordinator loses only the units in flight;
//! leftover `.tmp` files are removed by the next run (which holds the
//! lock, so they can only be a dead run's). A cancelled line is appended
//! with one write; a torn last line is skipped.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use kalah_solver::Rules;
use serde::{Deserialize, Serialize};

use crate::unit::{RunIdentity, UnitKey, UnitRecord};

/// The format of work directories this program writes: 2 (records with
/// checksums and seeds; format 1 had neither).
pub const FORMAT: u32 = 2;

/// The run a work directory belongs to (`run.json`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RunConfig {
    /// Format of this directory ([`FORMAT`]).
    pub format: u32,
    /// The game; its `table_seeds` are the latest stretch's tables.
    #[serde(flatten)]
    pub identity: RunIdentity,
    /// Sowings from the start to the frontier of the top tree.
    pub frontier: u32,
    /// Node budget of a unit (0: none).
    pub budget: u64,
    /// A test expected to hold is a unit up to this many sowings above the
    /// frontier ([`crate::plan::TopTree::cut_early`]).
    #[serde(default)]
    pub cut_early: u32,
}

impl RunConfig {
    /// The configuration in work directory `root`'s `run.json`, and the
    /// rules it names.
    ///
    /// # Errors
    /// A file that cannot be read or parsed, of another format, or rules
    /// no game has (the file named).
    pub fn read(root: &Path) -> Result<(RunConfig, Rules), StoreError> {
        let path = root.join("run.json");
        let text = fs::read_to_string(&path).map_err(io_err(&path))?;
        let config = parse_config(&path, &text)?;
        let slug = &config.identity.rules;
        let rules = Rules::from_slug(slug).ok_or_else(|| StoreError::Parse {
            path: path.clone(),
            error: format!("unknown rules {slug:?}"),
        })?;
        Ok((config, rules))
    }

    /// Whether a run of `self` may go on in a directory made for
    /// `found`: the same game, frontier, budget and cut-early depth
    /// (the same facts replayed with another frontier would ask for
    /// other units); the tables may differ.
    fn continues(&self, found: &RunConfig) -> bool {
        self.identity.game_differs(&found.identity).is_none()
            && self.frontier == found.frontier
            && self.budget == found.budget
            && self.cut_early == found.cut_early
    }
}

/// `run.json`'s text as a [`RunConfig`] of this program's format.
fn parse_config(path: &Path, text: &str) -> Result<RunConfig, StoreError> {
    #[derive(Deserialize)]
    struct Format {
        format: u32,
    }
    let parse = |e: serde_json::Error| StoreError::Parse {
        path: path.to_path_buf(),
        error: e.to_string(),
    };
    let format: Format = serde_json::from_str(text).map_err(parse)?;
    if format.format != FORMAT {
        return Err(StoreError::Parse {
            path: path.to_path_buf(),
            error: format!(
                "a work directory of format {} (this program reads format {FORMAT}, whose records carry checksums): use a new --work directory",
                format.format
            ),
        });
    }
    serde_json::from_str(text).map_err(parse)
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
    /// Another process runs on the directory (it holds `lock`).
    Busy {
        dir: PathBuf,
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
            StoreError::Busy { dir } => write!(
                f,
                "{}: the work directory is busy: another process runs on it (it holds {}); wait for it to end, or pass --wait",
                dir.display(),
                dir.join("lock").display()
            ),
        }
    }
}

impl std::error::Error for StoreError {}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |error| StoreError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// An open work directory, locked for this process while it is open.
pub struct WorkDir {
    root: PathBuf,
    config: RunConfig,
    /// The held lock (released when dropped, or when the process dies).
    _lock: File,
}

/// What a work directory held when opened.
#[derive(Default)]
pub struct Loaded {
    /// Every usable record, each unit once, in no particular order.
    pub records: Vec<UnitRecord>,
    /// Units stopped as unnecessary.
    pub cancelled: Vec<UnitRecord>,
    /// Units a fill stopped unanswered (`partial.jsonl`).
    pub partial: Vec<UnitRecord>,
    /// Records refused, with why (naming the file).
    pub refused: Vec<String>,
    /// Sealed segments read.
    pub segments: usize,
}

/// How [`WorkDir::open`] treats a directory another process holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Busy {
    /// Refuse at once ([`StoreError::Busy`]).
    Refuse,
    /// Wait until the other process lets go (saying so once on stderr).
    Wait,
}

impl WorkDir {
    /// Opens `root` for `config`, creating it (and `run.json`) when new,
    /// and takes its lock for as long as the value lives. The frontier
    /// and the budget are part of the run: the same results replayed
    /// with another frontier would ask for other units. The tables may
    /// change from one stretch to the next (`run.json` then names the
    /// new depth): a record's verdict is a fact of the game, whatever
    /// tables the search probed.
    ///
    /// # Errors
    /// A directory that cannot be created or read, one whose `run.json`
    /// names another game, frontier or budget, or of another format; one
    /// another process holds ([`Busy::Refuse`]).
    pub fn open(root: &Path, config: &RunConfig, busy: Busy) -> Result<WorkDir, StoreError> {
        let units = root.join("units");
        fs::create_dir_all(&units).map_err(io_err(&units))?;
        let lock = take_lock(root, busy)?;
        let path = root.join("run.json");
        match fs::read_to_string(&path) {
            Ok(text) => {
                let found = parse_config(&path, &text)?;
                if !config.continues(&found) {
                    return Err(StoreError::Mismatch {
                        path,
                        found: describe(&found),
                        wanted: describe(config),
                    });
                }
                if &found != config {
                    write_atomic(&path, pretty(config).as_bytes())?;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                write_atomic(&path, pretty(config).as_bytes())?;
            }
            Err(e) => return Err(io_err(&path)(e)),
        }
        // Under the lock, temporary files are a dead run's.
        for entry in fs::read_dir(&units).map_err(io_err(&units))?.flatten() {
            if entry.path().extension().is_some_and(|x| x == "tmp") {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(WorkDir {
            root: root.to_path_buf(),
            config: config.clone(),
            _lock: lock,
        })
    }

    /// The run's configuration.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads every record: the sealed segments', then the loose ones. A
    /// record that does not parse, fails its checksum, or does not match
    /// this run (houses, seeds, rules, its own key) is refused and named,
    /// never used; a unit recorded twice (a pack stopped between writing
    /// its segment and removing the loose files) counts once.
    ///
    /// # Errors
    /// A directory that cannot be listed.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        read_records(&self.root, &self.config.identity)
    }

    /// Stores a finished unit, sealed (temporary name, sync, rename).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, key: &UnitKey, record: &UnitRecord) -> Result<(), StoreError> {
        let path = self.root.join("units").join(format!("{}.json", key.stem()));
        let text = serde_json::to_string_pretty(&record.clone().seal()).expect("plain struct");
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
        let mut line = serde_json::to_string(&record.clone().seal()).expect("plain struct");
        line.push('\n');
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(io_err(&path))
    }

    /// Packs the loose records (`units/`, `cancelled.jsonl`) into the next
    /// sealed segment and removes them: the form a long run's records are
    /// committed in. Refused loose records are left where they are (and
    /// stay refused). Returns the segment written and the records in it
    /// (`None` when there was nothing to pack).
    ///
    /// # Errors
    /// A file that cannot be read, written or removed.
    pub fn pack(&self) -> Result<Option<(PathBuf, usize)>, StoreError> {
        let loose = read_loose(&self.root, &self.config.identity)?;
        let count = loose.records.len() + loose.cancelled.len();
        if count == 0 {
            return Ok(None);
        }
        let dir = self.root.join("segments");
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let next = segment_names(&dir)?
            .iter()
            .filter_map(|p| segment_number(p))
            .max()
            .map_or(1, |n| n + 1);
        let path = dir.join(format!("{next:06}.jsonl.gz"));
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
        let mut records: Vec<&UnitRecord> = loose.records.iter().collect();
        records.sort_by_key(|r| r.seq);
        for r in records.into_iter().chain(&loose.cancelled) {
            let line = serde_json::to_string(r).expect("plain struct");
            gz.write_all(line.as_bytes())
                .and_then(|()| gz.write_all(b"\n"))
                .map_err(io_err(&path))?;
        }
        let bytes = gz.finish().map_err(io_err(&path))?;
        write_atomic(&path, &bytes)?;
        for r in &loose.records {
            let key = r.key().expect("checked when loaded");
            let file = self.root.join("units").join(format!("{}.json", key.stem()));
            fs::remove_file(&file).map_err(io_err(&file))?;
        }
        let cancelled = self.root.join("cancelled.jsonl");
        match fs::remove_file(&cancelled) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_err(&cancelled)(e)),
            _ => {}
        }
        sync_dir(&self.root.join("units"))?;
        Ok(Some((path, count)))
    }
}

/// Reads the records of the work directory `root` of `identity`'s game
/// without taking its lock ([`WorkDir::load`]): for a status report or a
/// certificate while a run may be writing (a record being written is
/// not there yet, never half there).
///
/// # Errors
/// A directory that cannot be listed.
pub fn read_records(root: &Path, identity: &RunIdentity) -> Result<Loaded, StoreError> {
    let mut loaded = Loaded::default();
    let mut seen = std::collections::HashSet::new();
    let dir = root.join("segments");
    let names = match fs::metadata(&dir) {
        Ok(_) => segment_names(&dir)?,
        Err(_) => Vec::new(),
    };
    for path in names {
        loaded.segments += 1;
        let file = File::open(&path).map_err(io_err(&path))?;
        let reader = BufReader::new(MultiGzDecoder::new(file));
        for (i, line) in reader.lines().enumerate() {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    loaded
                        .refused
                        .push(format!("{} after line {i}: {e}", path.display()));
                    break;
                }
            };
            let parsed = serde_json::from_str::<UnitRecord>(&line)
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    r.verify(identity)
                        .map(|k| (k, r))
                        .map_err(|e| e.to_string())
                });
            match parsed {
                Ok((_, r)) if r.stopped.is_some() => loaded.cancelled.push(r),
                Ok((key, r)) => {
                    if seen.insert(key) {
                        loaded.records.push(r);
                    }
                }
                Err(e) => loaded
                    .refused
                    .push(format!("{} line {}: {e}", path.display(), i + 1)),
            }
        }
    }
    let loose = read_loose(root, identity)?;
    for r in loose.records {
        if seen.insert(r.key().expect("checked when loaded")) {
            loaded.records.push(r);
        }
    }
    loaded.cancelled.extend(loose.cancelled);
    loaded.partial = loose.partial;
    loaded.refused.extend(loose.refused);
    Ok(loaded)
}

/// The loose records of `root`: `units/`, `cancelled.jsonl`,
/// `partial.jsonl`.
fn read_loose(root: &Path, identity: &RunIdentity) -> Result<Loaded, StoreError> {
    let units = root.join("units");
    let mut loaded = Loaded::default();
    let mut names: Vec<PathBuf> = match fs::read_dir(&units) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io_err(&units)(e)),
    };
    names.sort();
    for path in names {
        let parsed = fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<UnitRecord>(&t).map_err(|e| e.to_string()))
            .and_then(|r| {
                let key = r.verify(identity).map_err(|e| e.to_string())?;
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
    loaded.cancelled = lines(root, "cancelled.jsonl", identity)?;
    loaded.partial = lines(root, "partial.jsonl", identity)?;
    Ok(loaded)
}

/// The records of a file of lines that fit the run (a torn or foreign
/// line is skipped); none when it does not exist.
fn lines(root: &Path, name: &str, identity: &RunIdentity) -> Result<Vec<UnitRecord>, StoreError> {
    let path = root.join(name);
    match fs::read_to_string(&path) {
        Ok(text) => Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str::<UnitRecord>(l).ok())
            .filter(|r| r.verify(identity).is_ok())
            .collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_err(&path)(e)),
    }
}

/// The segment files of `dir`, in order.
fn segment_names(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(io_err(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| segment_number(p).is_some())
        .collect();
    names.sort();
    Ok(names)
}

/// `n` of a segment's name `<n>.jsonl.gz` (six digits or more).
fn segment_number(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    let digits = name.strip_suffix(".jsonl.gz")?;
    (digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Whether a process holds work directory `root`'s lock now (a run on
/// it); `false` for a directory without a lock file.
///
/// # Errors
/// A lock file that cannot be opened.
pub fn is_busy(root: &Path) -> Result<bool, StoreError> {
    let path = root.join("lock");
    let file = match File::options().read(true).write(true).open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io_err(&path)(e)),
    };
    match file.try_lock() {
        Ok(()) => Ok(false),
        Err(fs::TryLockError::WouldBlock) => Ok(true),
        Err(fs::TryLockError::Error(e)) => Err(io_err(&path)(e)),
    }
}

/// Takes the lock of work directory `root`.
fn take_lock(root: &Path, busy: Busy) -> Result<File, StoreError> {
    let path = root.join("lock");
    let file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io_err(&path))?;
    let mut said = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(fs::TryLockError::WouldBlock) => {}
            Err(fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
        }
        if busy == Busy::Refuse {
            return Err(StoreError::Busy {
                dir: root.to_path_buf(),
            });
        }
        if !said {
            eprintln!(
                "kalah-cluster: {} is busy (another process holds {}): waiting",
                root.display(),
                path.display()
            );
            said = true;
        }
        if kalah::interrupt::requested() {
            return Err(StoreError::Busy {
                dir: root.to_path_buf(),
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn pretty(config: &RunConfig) -> String {
    serde_json::to_string_pretty(config).expect("plain struct")
}

fn describe(c: &RunConfig) -> String {
    format!(
        "Kalah({},{}), rules {}, frontier {}, cut nodes {} above it, unit budget {}",
        c.identity.pits, c.identity.seeds, c.identity.rules, c.frontier, c.cut_early, c.budget
    )
}

/// Writes `bytes` to `path` through a temporary name of this process's
/// own in the same directory, synced, then renamed over `path`, and the
/// directory synced: `path` holds the old bytes or the new ones, whole,
/// after any crash.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        WRITES.fetch_add(1, Relaxed)
    ));
    let tmp = PathBuf::from(tmp);
    let written = File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .map_err(io_err(&tmp));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path).map_err(io_err(path))?;
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => sync_dir(parent),
        _ => Ok(()),
    }
}

/// Syncs a directory's entries (a rename in it) to disk.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}
