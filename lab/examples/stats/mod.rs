//! The examples' summary of repeated measurements.

/// The median of `v` (of an even count, the upper of the two middle
/// values). `v` must not be empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
