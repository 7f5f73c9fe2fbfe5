//! Search settings: table size, threads, and a switch for every enhancement
//! so that its effect on nodes and time can be measured alone.

/// How the solver searches. Every switch changes only speed, never values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Transposition table size in MiB.
    pub tt_mb: usize,
    /// Search threads (see [`SearchConfig::split_seeds`]); 1 = no threads.
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
    /// With several threads, the fewest seeds above the endgame tables
    /// (above 0 without) of a node that splits: once its first child did
    /// not cut it off, it hands the others out in order to the threads
    /// that are free (young brothers wait; a cut-off cancels the rest).
    /// Smaller subtrees cost less than handing them to another thread.
    pub split_seeds: u32,
    /// With several threads, how many children of a cut-node that splits
    /// are searched at once; 1 (the default): cut-nodes never split, only
    /// all-nodes do. A cut-node is one the search expects to fail high (the
    /// test's root when it is expected to, then every other level below,
    /// extra turns not counting): one child should cut it off,
    /// and the children searched beside that one are wasted (measurements:
    /// lab/journal/search.md, "Search threads").
    pub cut_width: u32,
    /// With [`SearchConfig::cut_width`] above 1, how many children a
    /// cut-node searches alone before it splits (an all-node: one). At a
    /// cut-node whose first child failed, the second often cuts.
    pub cut_wait: u32,
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
            split_seeds: 10,
            cut_width: 1,
            cut_wait: 2,
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
            parity: false,
            guess_depth: 0,
            ..SearchConfig::default()
        }
    }
}
