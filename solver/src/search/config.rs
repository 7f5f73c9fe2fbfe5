//! Search settings: table size, threads, and a switch for every enhancement
//! so that its effect on nodes and time can be measured alone.

/// How the solver searches. Every switch changes only speed, never values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Transposition table size in MiB.
    pub tt_mb: usize,
    /// Search threads (see [`SearchConfig::ybwc`]); 1 = no threads.
    pub threads: usize,
    /// Try the table's best house first.
    pub tt_move: bool,
    /// Order the other houses by the seeds they put into the store, an
    /// extra turn counting five more, ties right to left (see
    /// [`ordering`](super::ordering)). Off: left to right.
    pub ordering: bool,
    /// Cut off when the seeds on the board cannot reach the window, and on
    /// children whose worst case (gain minus all seeds left) reaches beta.
    pub futility: bool,
    /// Enhanced transposition cut-off: look every child up in the table (and
    /// the endgame tables) before searching any of them. Off by default:
    /// it saves 15-20% of the nodes but costs 20-30% more time (Kalah(5,4)
    /// and (6,3), 256 MiB table), each look-up costing about a node.
    pub etc: bool,
    /// Before searching any child, look up every child the endgame tables
    /// cover (or whose game is over): one that reaches beta cuts the node,
    /// and the others are not searched again. The cheap part of ETC: the
    /// entries were prefetched and are read once either way.
    pub probe_cuts: bool,
    /// Enhanced transposition cut-offs only at boards with at least this
    /// many seeds: near the leaves the extra table look-ups cost more than
    /// the nodes they save.
    pub etc_min_seeds: u32,
    /// Ask the [`Probe`](crate::Probe), when one is given, for boards with
    /// at most its number of seeds.
    pub probes: bool,
    /// Boards with at most this many seeds more than the endgame tables
    /// cover (than none without tables) skip the transposition table: their
    /// subtrees are small, and the table's memory misses cost more than
    /// searching them again.
    pub tt_skip: u32,
    /// Lazy SMP only (`ybwc` off): a thread with no test to run starts the
    /// test MTD(f) will need next if the running one ends as expected; off:
    /// it helps the running test. Off by default: the last, failing test is
    /// the largest, and the test speculated beside it is wasted (Kalah(6,4)
    /// with 20-seed tables, 2 threads: 40 M nodes against 33 M for STD,
    /// 14.3 M against 11.3 M for EC).
    pub speculate: bool,
    /// Lazy SMP only: helper threads near the root put off any child
    /// another thread is searching, the first included (ABDADA without the
    /// eldest brother wait): at an all-node every child must be searched,
    /// so they split.
    pub helpers_split: bool,
    /// With several threads: young brothers wait. One search per MTD(f)
    /// test; a node with [`SearchConfig::split_seeds`] seeds or more above
    /// the endgame tables whose first child did not cut off searches the
    /// others in parallel (rayon tasks, a cut-off cancelling its siblings).
    /// Off: lazy SMP, every thread searching the test over the shared table
    /// (see [`SearchConfig::helpers_split`], [`SearchConfig::speculate`]).
    /// Kalah(6,4) STD with 20-seed tables, 2 threads: 1.81x the speed of
    /// one thread, lazy SMP 1.52x (medians of 5 interleaved runs).
    pub ybwc: bool,
    /// The fewest seeds above the endgame tables (above 0 without) of a
    /// node that splits (young brothers wait): smaller subtrees cost less
    /// than handing them to another thread. From 4 to 16 (Kalah(6,4), 20
    /// seeds) the time differed by less than the noise.
    pub split_seeds: u32,
    /// Let MTD(f) step by two when the rules fix the parity of values.
    pub parity: bool,
    /// Depth (sowings) of the plain alpha-beta search that gives MTD(f) its
    /// first guess; 0 guesses 0.
    pub guess_depth: u32,
}

/// Default of [`SearchConfig::etc_min_seeds`].
pub const ETC_MIN_SEEDS: u32 = 0;

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            tt_mb: 256,
            threads: 1,
            tt_move: true,
            ordering: true,
            futility: true,
            etc: false,
            probe_cuts: true,
            etc_min_seeds: ETC_MIN_SEEDS,
            probes: true,
            tt_skip: 2,
            speculate: false,
            helpers_split: true,
            ybwc: true,
            split_seeds: 10,
            parity: true,
            guess_depth: 8,
        }
    }
}

impl SearchConfig {
    /// Every enhancement off: plain MTD(f) over alpha-beta with a table.
    pub fn plain() -> SearchConfig {
        SearchConfig {
            tt_move: false,
            ordering: false,
            futility: false,
            etc: false,
            probe_cuts: false,
            probes: false,
            tt_skip: 0,
            speculate: false,
            helpers_split: false,
            parity: false,
            guess_depth: 0,
            ..SearchConfig::default()
        }
    }
}
