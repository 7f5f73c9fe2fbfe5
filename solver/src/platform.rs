//! Every call into the operating system or the processor that Rust cannot
//! check: the one home of this crate's platform `unsafe` code (the signal
//! handlers of the program are the `signal-hook` crate's).
//!
//! * `AnonArray`: large shared arrays in anonymous memory that asks for
//!   transparent huge pages (the tables being built, the transposition
//!   table).
//! * `read_only_copy`: a file's bytes copied into such memory.
//! * `prefetch`: a cache hint before a random read.
//! * `map_read_only`: a file mapped into memory; an `unsafe fn`, since
//!   its soundness rests on what other writers do, which its caller must
//!   vouch for (the table reader's one `unsafe` block outside this module).
//! * [`free_disk_space`], [`stdin_ready`]: `statvfs` and `poll`;
//!   [`physical_memory`] (no `unsafe`: `/proc/meminfo`).
//!
//! Each `unsafe` block says why it is sound (`SAFETY:`); the crate denies
//! unsafe operations outside such blocks and undocumented ones.

use memmap2::{Mmap, MmapMut, MmapOptions, MmapRaw};
use std::fs::File;
use std::io;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicI8, AtomicU64, AtomicU8};

/// Element types of an [`AnonArray`]: shared between threads through
/// atomics only, and valid for any bytes (zero ones included): atomic
/// integers, and arrays and structs made only of them.
///
/// # Safety
/// An implementing type must be valid for every byte pattern, have no
/// padding, be `Sync` through atomics only, and need no alignment above a
/// page (4096 bytes).
pub(crate) unsafe trait ZeroedAtomic: Sync {}

// SAFETY: an atomic integer is its integer: every byte pattern is valid,
// no padding, alignment at most 8.
unsafe impl ZeroedAtomic for AtomicI8 {}
// SAFETY: as for AtomicI8.
unsafe impl ZeroedAtomic for AtomicU8 {}
// SAFETY: as for AtomicI8.
unsafe impl ZeroedAtomic for AtomicU64 {}
// SAFETY: an array of such elements has no padding between them, is valid
// for any bytes when they are, and aligns as they do.
unsafe impl<T: ZeroedAtomic, const N: usize> ZeroedAtomic for [T; N] {}

/// `len` values of `T` in anonymous memory, shared by threads through
/// atomics: a table that is read and written at random.
///
/// Fresh memory is zero pages, so an array costs nothing until touched. On
/// Linux it asks for transparent huge pages: with 4 KiB pages, nearly every
/// random access would also miss the TLB (see lab/journal/tables.md). The
/// request is a hint; without huge pages the array works the same.
///
/// The first value starts on a page boundary, so a value whose size is a
/// power of two up to a page lies within one aligned block of its size
/// (two 32-byte buckets share a 64-byte cache line, and none straddles
/// two).
pub(crate) struct AnonArray<T: ZeroedAtomic> {
    map: MmapRaw,
    len: usize,
    element: PhantomData<T>,
}

impl<T: ZeroedAtomic> std::fmt::Debug for AnonArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnonArray").field("len", &self.len).finish()
    }
}

impl<T: ZeroedAtomic> AnonArray<T> {
    /// `len` zero values.
    ///
    /// # Errors
    /// If the size overflows or the memory cannot be mapped.
    pub fn zeroed(len: usize) -> io::Result<AnonArray<T>> {
        AnonArray::with(len, |_| {})
    }

    /// `len` values whose bytes start zero, then are set by `init` (which
    /// sees them as plain bytes, before any thread shares the array).
    ///
    /// # Errors
    /// If the size overflows or the memory cannot be mapped.
    pub fn with(len: usize, init: impl FnOnce(&mut [u8])) -> io::Result<AnonArray<T>> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| io::Error::new(io::ErrorKind::OutOfMemory, "array size overflows"))?;
        let mut map = anon_map(bytes)?;
        init(&mut map[..bytes]);
        Ok(AnonArray {
            map: MmapRaw::from(map),
            len,
            element: PhantomData,
        })
    }

    /// The values.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        let p = self.map.as_ptr() as *const T;
        // SAFETY: the map is page-aligned (T needs at most that), holds
        // `len * size_of::<T>()` bytes and lives as long as `self`; any
        // bytes are valid values of T (ZeroedAtomic). Once built, no Rust reference to the bytes exists but this shared
        // slice, and T is accessed through atomics only (ZeroedAtomic).
        unsafe { std::slice::from_raw_parts(p, self.len) }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }
}

/// At least `len` zero bytes of anonymous memory, asking for transparent
/// huge pages on Linux (a hint: without them the memory works the same).
fn anon_map(len: usize) -> io::Result<MmapMut> {
    // A map of zero bytes is an error: map at least one.
    let map = MmapOptions::new().len(len.max(1)).map_anon()?;
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

/// A read-only copy of `bytes` in anonymous memory that asks for huge
/// pages: a table read at random from memory rather than through a file
/// map's 4 KiB pages. Unlike a file map, nothing outside this process can
/// change it.
///
/// # Errors
/// If the memory cannot be mapped or protected.
pub(crate) fn read_only_copy(bytes: &[u8]) -> io::Result<Mmap> {
    let mut map = anon_map(bytes.len())?;
    map[..bytes.len()].copy_from_slice(bytes);
    map.make_read_only()
}

/// How soon the data asked for by [`prefetch`] is needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Locality {
    /// Into every cache level (T0): read next.
    L1,
    /// Into L2 and outward (T1): read soon, among many other lines that
    /// would evict each other from L1.
    L2,
}

/// Asks for the cache line holding `value`: a hint, with no effect on any
/// result. Does nothing off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T, locality: Locality) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let p = value as *const T as *const i8;
        match locality {
            // SAFETY: prefetching is a hint that never faults, and the
            // pointer comes from a live reference anyway.
            Locality::L1 => unsafe { _mm_prefetch(p, _MM_HINT_T0) },
            // SAFETY: as above.
            Locality::L2 => unsafe { _mm_prefetch(p, _MM_HINT_T1) },
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, locality);
}

/// Maps `file` read-only, whole.
///
/// # Safety
/// The map shows the file's bytes for as long as it lives, so it stays
/// sound only while nobody writes into the file or truncates it: the
/// caller must know that no process does so while the map (or anything
/// borrowed from it) lives. A write changes the bytes under a `&[u8]`
/// the compiler assumes immutable; a truncation kills the process with
/// SIGBUS when it touches a page past the new end (there is no error to
/// return: the read is a plain memory access). Replacing such a file by
/// renaming a new one over it leaves every existing map on the old file,
/// and deleting it is safe for the same reason; that is how this
/// project's writers replace files. The caller also checks the length it
/// expects against the map's before trusting any byte.
///
/// # Errors
/// If the file cannot be mapped.
pub(crate) unsafe fn map_read_only(file: &File) -> io::Result<Mmap> {
    // SAFETY: the bytes are only read through the map, and the caller
    // guarantees (this function's safety contract) that nobody writes
    // into or truncates the file while the map lives.
    unsafe { Mmap::map(file) }
}

/// Bytes free for an unprivileged user on the file system of `dir`, or of
/// its nearest existing ancestor (a directory about to be created); `None`
/// where the system does not say.
#[cfg(unix)]
pub fn free_disk_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = dir
        .ancestors()
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("."));
    let existing = if existing.as_os_str().is_empty() {
        Path::new(".")
    } else {
        existing
    };
    let c = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a NUL-terminated path and `st` a buffer of the right
    // type; statvfs only writes into it, and it is read only on success.
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs succeeded, so it filled the structure.
    let st = unsafe { st.assume_init() };
    // The field types differ between platforms (u32 or u64).
    #[allow(clippy::useless_conversion)]
    u64::from(st.f_bavail).checked_mul(u64::from(st.f_frsize))
}

/// Bytes free on the file system of `dir`: unknown off Unix.
#[cfg(not(unix))]
pub fn free_disk_space(_dir: &Path) -> Option<u64> {
    None
}

/// Bytes of physical memory, where the system says (Linux).
pub fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Whether standard input can be read without blocking: bytes waiting, its
/// end, or an error (which the read then reports).
#[cfg(unix)]
pub fn stdin_ready() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid `pollfd` for the duration of the call, a zero
    // timeout; `poll` only writes its `revents`.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n != 0
}

/// Without `poll`, standard input is never known to be ready: a batch then
/// ends each chunk where standard input's buffer does, and answers still
/// come as lines arrive, in smaller passes.
#[cfg(not(unix))]
pub fn stdin_ready() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn anon_arrays_start_zero_or_as_initialised() {
        let a = AnonArray::<[AtomicU64; 4]>::zeroed(1000).expect("map");
        assert_eq!(a.len(), 1000);
        assert!(a.as_slice().iter().flatten().all(|w| w.load(Relaxed) == 0));
        a.as_slice()[999][3].store(7, Relaxed);
        assert_eq!(a.as_slice()[999][3].load(Relaxed), 7);
        let b = AnonArray::<AtomicI8>::with(3, |bytes| bytes.fill(0x80)).expect("map");
        assert!(b.as_slice().iter().all(|v| v.load(Relaxed) == i8::MIN));
        let empty = AnonArray::<AtomicI8>::zeroed(0).expect("map");
        assert!(empty.len() == 0 && empty.as_slice().is_empty());
        assert!(AnonArray::<AtomicU64>::zeroed(usize::MAX).is_err());
        assert_eq!(a.as_slice().as_ptr() as usize % 4096, 0);
    }

    #[test]
    fn free_disk_space_of_a_directory_not_there_yet_is_its_parents() {
        let here = std::env::temp_dir();
        let below = here.join("kalah-no-such-dir/deeper");
        if cfg!(unix) {
            assert!(free_disk_space(&here).is_some());
            assert!(free_disk_space(&below).is_some());
        }
    }
}
