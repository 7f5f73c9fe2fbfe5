//! `kalah tables`: what a table directory holds, how big it is, and
//! removing what is no longer wanted. Which directory that is, and how it
//! is chosen, is the service's ([`crate::service::table_dir`]).

use std::fs;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use kalah_solver::table::{format, try_lock_build, TableFile, ALL_RULES};
use kalah_solver::Rules;

use super::common::{plural, CliError};
use crate::outln;
use crate::output::json_line;
use crate::service::table_dir::{resolve, TableDir};
use serde::Serialize;

/// The table files of one board size and rule set in a directory.
#[derive(Clone, Debug, Default)]
struct Set {
    tiers: Vec<u32>,
    /// Tier files, their stamps and the lock.
    bytes: u64,
    /// Tier files of another format version than this program reads
    /// (refused when opened; `kalah build` rebuilds them).
    old_format: Vec<u32>,
    /// Temporary files: being written, or left by a killed build.
    temp_files: u64,
    temp_bytes: u64,
}

impl Set {
    /// The largest K with every tier 0..=K present (`None` without tier 0).
    fn complete_up_to(&self) -> Option<u32> {
        let mut k = None;
        for (i, &t) in self.tiers.iter().enumerate() {
            if t != i as u32 {
                break;
            }
            k = Some(t);
        }
        k
    }

    /// Tiers present as ranges: `0..=22, 24`.
    fn ranges(&self) -> String {
        let mut parts = Vec::new();
        let mut i = 0;
        while i < self.tiers.len() {
            let start = self.tiers[i];
            let mut end = start;
            while i + 1 < self.tiers.len() && self.tiers[i + 1] == end + 1 {
                i += 1;
                end += 1;
            }
            parts.push(if start == end {
                start.to_string()
            } else {
                format!("{start}..={end}")
            });
            i += 1;
        }
        parts.join(", ")
    }
}

/// The sets of a directory, each under its (houses, rule set).
type Sets = Vec<((usize, Rules), Set)>;

/// Everything of interest in a table directory, by (houses, rule set).
fn scan(dir: &Path) -> Result<Sets, CliError> {
    let read = fs::read_dir(dir).map_err(|e| {
        CliError::Failure(format!(
            "cannot read table directory {}: {e}",
            dir.display()
        ))
    })?;
    let mut sets: Sets = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| {
            CliError::Failure(format!(
                "cannot read table directory {}: {e}",
                dir.display()
            ))
        })?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Some(kind) = TableFile::parse(&name) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let key = kind.set();
        let at = match sets.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                sets.push((key, Set::default()));
                sets.len() - 1
            }
        };
        let set = &mut sets[at].1;
        match kind {
            TableFile::Tier(_, _, k) => {
                set.tiers.push(k);
                set.bytes += meta.len();
                // Twelve bytes a file: cheap even for a full directory.
                if let Ok(Some(v)) = format::file_version(&entry.path()) {
                    if v != format::VERSION {
                        set.old_format.push(k);
                    }
                }
            }
            TableFile::Stamp(..) | TableFile::Lock(..) => set.bytes += meta.len(),
            TableFile::Temp(..) => {
                set.temp_files += 1;
                set.temp_bytes += meta.len();
            }
        }
    }
    for (_, s) in &mut sets {
        s.tiers.sort_unstable();
        s.old_format.sort_unstable();
    }
    sets.sort_by_key(|((p, r), _)| (*p, r.code()));
    Ok(sets)
}

/// `1234567` bytes as `1.2 MB`.
pub fn bytes_text(b: u64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    for (scale, unit) in UNITS {
        if b as f64 >= scale {
            return format!("{:.1} {unit}", b as f64 / scale);
        }
    }
    format!("{b} B")
}

/// Arguments of `kalah tables`.
#[derive(Args, Debug)]
pub struct TablesArgs {
    #[command(subcommand)]
    pub action: Option<TablesAction>,
    /// Directory of the endgame tables (default: $KALAH_TABLES, else the
    /// source tree's tables/, else ~/.local/share/kalah/tables).
    #[arg(long, global = true, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

/// What to do with the table directory.
#[derive(Subcommand, Debug)]
pub enum TablesAction {
    /// List the directory, its table sets (houses, rule set, tiers present,
    /// size) and leftovers of interrupted builds (the default).
    List,
    /// Remove table files: those of the sets named by --pits and --rules,
    /// above --above, or --all of them.
    Clean(CleanArgs),
}

/// Arguments of `kalah tables clean`.
#[derive(Args, Debug)]
pub struct CleanArgs {
    /// Only tables of this many houses a side.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub pits: Option<u8>,
    /// Only tables of this rule set: std, ec, std-delayed, ec-delayed,
    /// std-nosweep or ec-nosweep (as in the file names).
    #[arg(long, value_name = "SLUG", value_parser = parse_slug)]
    pub rules: Option<Rules>,
    /// Keep tiers 0..=K, remove the tiers above.
    #[arg(long, value_name = "K")]
    pub above: Option<u32>,
    /// Remove every table file of the directory (required when no other
    /// filter is given).
    #[arg(long)]
    pub all: bool,
    /// Say what would be removed, remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

fn parse_slug(s: &str) -> Result<Rules, String> {
    Rules::from_slug(s).ok_or_else(|| {
        let names: Vec<String> = ALL_RULES.iter().map(|r| r.slug()).collect();
        format!(
            "'{s}' is not a rule set; expected one of {}",
            names.join(", ")
        )
    })
}

/// `kalah tables`: list or clean the table directory.
///
/// # Errors
/// A directory that cannot be read, a file that cannot be removed, a clean
/// with no filter and no `--all`.
pub fn tables_command(args: &TablesArgs) -> Result<(), CliError> {
    let dir = resolve(args.tables.as_deref());
    match &args.action {
        None | Some(TablesAction::List) => list(&dir, args.json),
        Some(TablesAction::Clean(c)) => clean(&dir, c, args.json),
    }
}

fn list(dir: &TableDir, json: bool) -> Result<(), CliError> {
    let sets = if dir.path.is_dir() {
        scan(&dir.path)?
    } else {
        Vec::new()
    };
    let total: u64 = sets.iter().map(|(_, s)| s.bytes + s.temp_bytes).sum();
    if json {
        #[derive(Serialize)]
        struct Set {
            pits: usize,
            rules: String,
            tiers: Vec<u32>,
            complete_up_to: Option<u32>,
            old_format_tiers: Vec<u32>,
            bytes: u64,
            temporary_files: u64,
            temporary_bytes: u64,
        }
        #[derive(Serialize)]
        struct Listing {
            dir: String,
            source: &'static str,
            exists: bool,
            sets: Vec<Set>,
            bytes: u64,
        }
        let j = Listing {
            dir: dir.path.display().to_string(),
            source: dir.source.describe(),
            exists: dir.path.is_dir(),
            sets: sets
                .iter()
                .map(|((pits, rules), s)| Set {
                    pits: *pits,
                    rules: rules.slug(),
                    tiers: s.tiers.clone(),
                    complete_up_to: s.complete_up_to(),
                    old_format_tiers: s.old_format.clone(),
                    bytes: s.bytes,
                    temporary_files: s.temp_files,
                    temporary_bytes: s.temp_bytes,
                })
                .collect(),
            bytes: total,
        };
        return outln!("{}", json_line(&j));
    }
    outln!(
        "table directory: {} ({})",
        dir.path.display(),
        dir.source.describe()
    )?;
    if !dir.path.exists() {
        if dir.source.is_default() {
            outln!("(does not exist yet: the first solve or build creates it)")?;
        } else {
            outln!("(does not exist: create it, or let `kalah build` create it)")?;
        }
        return Ok(());
    }
    dir.existing()?;
    if sets.is_empty() {
        outln!("no table files")?;
        return Ok(());
    }
    outln!(
        "{:>6}  {:<12} {:<24} {:>10}  temporary files",
        "houses",
        "rules",
        "tiers",
        "size"
    )?;
    for ((pits, rules), s) in &sets {
        let mut tiers = s.ranges();
        if s.complete_up_to().is_none() {
            tiers.push_str(" (no tier 0: unusable)");
        } else if s.complete_up_to() != s.tiers.last().copied() {
            tiers.push_str(" (gap)");
        }
        if let Some(&first) = s.old_format.first() {
            tiers.push_str(&format!(
                " ({} from tier {first} in an older format: `kalah build` rebuilds them)",
                plural(s.old_format.len() as u64, "file", "files")
            ));
        }
        let leftovers = if s.temp_files == 0 {
            String::new()
        } else {
            format!(
                "{}, {}",
                plural(s.temp_files, "file", "files"),
                bytes_text(s.temp_bytes)
            )
        };
        outln!(
            "{pits:>6}  {:<12} {tiers:<24} {:>10}  {leftovers}",
            rules.slug(),
            bytes_text(s.bytes)
        )?;
    }
    outln!("total: {}", bytes_text(total))?;
    Ok(())
}

fn clean(dir: &TableDir, c: &CleanArgs, json: bool) -> Result<(), CliError> {
    if !c.all && c.pits.is_none() && c.rules.is_none() && c.above.is_none() {
        return Err(CliError::Input(
            "say what to remove: --pits M, --rules SLUG, --above K (any together), or --all".into(),
        ));
    }
    dir.existing()?;
    let read = fs::read_dir(&dir.path).map_err(|e| {
        CliError::Failure(format!(
            "cannot read table directory {}: {e}",
            dir.path.display()
        ))
    })?;
    let mut doomed: Vec<(PathBuf, u64)> = Vec::new();
    // The build locks taken so far, by set: held until the files are gone,
    // so that no build of a set runs while its files are removed.
    let mut locks: Vec<((usize, Rules), Option<fs::File>)> = Vec::new();
    for entry in read.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Some(kind) = TableFile::parse(&name) else {
            continue;
        };
        let (pits, rules) = kind.set();
        let selected = !matches!(kind, TableFile::Lock(..))
            && c.pits.is_none_or(|p| p as usize == pits)
            && c.rules.is_none_or(|r| r == rules)
            && c.above.is_none_or(|a| kind.tier().is_none_or(|k| k > a));
        if !selected {
            continue;
        }
        if !locks.iter().any(|(set, _)| *set == (pits, rules)) {
            locks.push((
                (pits, rules),
                try_lock_build(&dir.path, pits, rules)
                    .map_err(|e| CliError::Failure(e.to_string()))?,
            ));
        }
        if locks
            .iter()
            .any(|(set, lock)| *set == (pits, rules) && lock.is_none())
        {
            continue;
        }
        let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
        doomed.push((entry.path(), len));
    }
    for ((pits, rules), lock) in &locks {
        if lock.is_none() {
            eprintln!(
                "kalah: a build of {} houses, {} is running in {}: its files are left alone",
                pits,
                rules.slug(),
                dir.path.display()
            );
        }
    }
    doomed.sort();
    let bytes: u64 = doomed.iter().map(|(_, b)| b).sum();
    if !c.dry_run {
        for (path, _) in &doomed {
            fs::remove_file(path)
                .map_err(|e| CliError::Failure(format!("cannot remove {}: {e}", path.display())))?;
        }
    }
    let verb = if c.dry_run { "would remove" } else { "removed" };
    if json {
        #[derive(Serialize)]
        struct Cleaned {
            dir: String,
            dry_run: bool,
            files: Vec<String>,
            bytes: u64,
        }
        let j = Cleaned {
            dir: dir.path.display().to_string(),
            dry_run: c.dry_run,
            files: doomed
                .iter()
                .map(|(p, _)| p.display().to_string())
                .collect(),
            bytes,
        };
        return outln!("{}", json_line(&j));
    }
    for (path, len) in &doomed {
        outln!("{verb} {} ({})", path.display(), bytes_text(*len))?;
    }
    outln!(
        "{verb} {}, {}",
        plural(doomed.len() as u64, "file", "files"),
        bytes_text(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_ranges_read_well() {
        let s = Set {
            tiers: vec![0, 1, 2, 3, 5, 7, 8],
            ..Set::default()
        };
        assert_eq!(s.ranges(), "0..=3, 5, 7..=8");
        assert_eq!(s.complete_up_to(), Some(3));
        let s = Set {
            tiers: vec![1, 2],
            ..Set::default()
        };
        assert_eq!(s.complete_up_to(), None);
    }
}
