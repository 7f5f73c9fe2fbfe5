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
    /// Before searching any child, look up every child the endgame tables
    /// cover (or whose game is over): one that reaches beta cuts the node,
    /// and the others are not searched again. The cheap part of an enhanced
    /// transposition cut-off (ETC, every child looked up in the
    /// transposition table too), which saved 15-20 % of the nodes but cost
    /// 20-30 % more time and was removed (lab/journal/search.md): these
    /// entries were prefetched and are read once either way.
    pub probe_cuts: bool,
    /// Ask the [`Probe`](crate::Probe), when one is given, for boards with
    /// at most its number of seeds.
    pub probes: bool,
    /// Boards with at most this many seeds more than the endgame tables
    /// cover (than none without tables) skip the transposition table: their
    /// subtrees are small, and the table's memory misses cost more than
    /// searching them again.
    pub tt_skip: u32,
    /// With several threads, the fewest seeds above the endgame tables
    /// (above 0 without) of an all-node that splits: once its first child
    /// did not cut it off, it hands the others out in order to the threads
    /// that are free (young brothers wait; a cut-off cancels the rest).
    /// Smaller subtrees cost less than handing them to another thread.
    /// Cut-nodes (the search expects them to fail high: the test's root
    /// when it is expected to, then every other level below, extra turns
    /// not counting) never split: the children searched beside the one
    /// that cuts would be wasted (measured: lab/journal/search.md,
    /// "Search threads").
    pub split_seeds: u32,
    /// Let MTD(f) step by two when the rules fix the parity of values.
    pub parity: bool,
    /// Depth (sowings) of the shallow search
    /// ([`shallow::search`](super::shallow::search), no probes) that gives
    /// MTD(f) its first guess; 0 guesses 0.
    pub guess_depth: u32,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            tt_mb: 256,
            threads: 1,
            tt_move: true,
            ordering: true,
            futility: true,
            probe_cuts: true,
            probes: true,
            tt_skip: 2,
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
            probe_cuts: false,
            probes: false,
            tt_skip: 0,
            parity: false,
            guess_depth: 0,
            ..SearchConfig::default()
        }
    }
}
