//! Work spread over the cores: a slice cut into one chunk per core, each chunk mapped on
//! a scoped thread, the results back in the slice's order. Threads are computation, not
//! I/O: the library stays pure.

/// How many threads to use: `MESHC_THREADS` when set to a number from 1 to 64, else the
/// available cores, at most 8. Results never depend on it: every map below returns its
/// results in the input's order (the tests build the same mesh with 1 and with several
/// threads and compare the bytes).
pub fn threads() -> usize {
    // Asked once: on Linux the answer reads the cgroup files on every call.
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        threads_from(std::env::var("MESHC_THREADS").ok().as_deref()).unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(8)
        })
    })
}

/// The thread count `MESHC_THREADS` asks for, if it is a number from 1 to 64.
fn threads_from(value: Option<&str>) -> Option<usize> {
    value?
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=64).contains(n))
}

/// Maps every chunk of `items` with `f` on its own thread and concatenates the results
/// in order. Small inputs (under `min_len` items) stay on the calling thread.
pub fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    min_len: usize,
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    map_chunks_with(items, min_len, || (), |(), part| f(part))
}

/// Like [`map_chunks`], with a state made on the calling thread for each chunk and moved
/// to the chunk's thread: a snapshot of a database that may not be shared between
/// threads, say.
pub fn map_chunks_with<S: Send, T: Sync, R: Send>(
    items: &[T],
    min_len: usize,
    make: impl FnMut() -> S,
    f: impl Fn(S, &[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let parts = map_parts_with(items, min_len, make, f);
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    // Joined into one vector sized once: collecting the parts one after another
    // would move every result again at each doubling (100,000 loaded modules).
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        out.extend(part);
    }
    out
}

/// Like [`map_chunks`], but the chunks' results are returned as they were made, in
/// order, not joined: for a caller that moves each result on into a table of its own,
/// which would otherwise move every result twice (100,000 loaded modules of a mesh).
pub fn map_parts<T: Sync, R: Send>(
    items: &[T],
    min_len: usize,
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<Vec<R>> {
    map_parts_with(items, min_len, || (), |(), part| f(part))
}

fn map_parts_with<S: Send, T: Sync, R: Send>(
    items: &[T],
    min_len: usize,
    mut make: impl FnMut() -> S,
    f: impl Fn(S, &[T]) -> Vec<R> + Sync,
) -> Vec<Vec<R>> {
    let threads = threads();
    if threads <= 1 || items.len() < min_len.max(2) {
        return vec![f(make(), items)];
    }
    let chunk = items.len().div_ceil(threads);
    let _section = Section::start();
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let state = make();
                let f = &f;
                scope.spawn(move || f(state, part))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Maps every item of `items` with `f`, the items handed out in batches of `batch` to
/// whichever thread is free (the calling thread among them), and returns the results in
/// the input's order. Each thread gets a state of its own, made on the calling thread (a
/// database snapshot, say). For many small items of unequal cost: the files of a
/// workspace, where equal halves would leave one core idle while the other finishes.
pub fn map_batches_with<S: Send, T: Sync, R: Send>(
    items: &[T],
    batch: usize,
    make: impl FnMut() -> S,
    f: impl Fn(&S, &T) -> R + Sync,
) -> Vec<R> {
    map_batches_on(threads(), false, items, batch, make, f)
}

/// How many sections spread over the cores ([`map_chunks_with`], [`map_each`]) are
/// under way, for background work to wait on (see [`map_batches_beside`]).
static SECTIONS: std::sync::Mutex<usize> = std::sync::Mutex::new(0);
/// Told when the last section under way ends.
static SECTIONS_DONE: std::sync::Condvar = std::sync::Condvar::new();

/// A section under way, from its start to its drop (a panic in it ends it too).
struct Section;

impl Section {
    fn start() -> Section {
        *SECTIONS.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        Section
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        let mut n = SECTIONS.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        if *n == 0 {
            SECTIONS_DONE.notify_all();
        }
    }
}

/// Waits until no section is under way.
fn wait_for_sections() {
    let mut n = SECTIONS.lock().unwrap_or_else(|e| e.into_inner());
    while *n > 0 {
        n = SECTIONS_DONE.wait(n).unwrap_or_else(|e| e.into_inner());
    }
}

/// Maps `items` as [`map_batches_with`] does, in the background of work spread over the
/// cores beside it: on one thread fewer than [`threads`] (at least one), so that the
/// thread beside has a core of its own (see [`crate::db::beside`]), and, before each
/// batch, waiting while a section of [`map_chunks_with`] or [`map_each`] is under way, so
/// that such a section (the thread beside spreading its own work) has every core while
/// it lasts. Background work only waits between batches, holding nothing.
pub fn map_batches_beside<S: Send, T: Sync, R: Send>(
    items: &[T],
    batch: usize,
    make: impl FnMut() -> S,
    f: impl Fn(&S, &T) -> R + Sync,
) -> Vec<R> {
    let threads = threads().saturating_sub(1).max(1);
    map_batches_on(threads, true, items, batch, make, f)
}

/// [`map_batches_with`] on at most `threads` threads (the calling thread among them),
/// each batch waiting for the sections under way first when `background`.
fn map_batches_on<S: Send, T: Sync, R: Send>(
    threads: usize,
    background: bool,
    items: &[T],
    batch: usize,
    mut make: impl FnMut() -> S,
    f: impl Fn(&S, &T) -> R + Sync,
) -> Vec<R> {
    let batch = batch.max(1);
    let batches = items.len().div_ceil(batch);
    let threads = threads.min(batches);
    if threads <= 1 {
        let state = make();
        let mut out = Vec::with_capacity(items.len());
        for part in items.chunks(batch) {
            if background {
                wait_for_sections();
            }
            out.extend(part.iter().map(|i| f(&state, i)));
        }
        return out;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = |state: S| {
        let mut mine: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            if background {
                wait_for_sections();
            }
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let start = k * batch;
            if start >= items.len() {
                break;
            }
            let end = (start + batch).min(items.len());
            mine.push((k, items[start..end].iter().map(|i| f(&state, i)).collect()));
        }
        mine
    };
    let mut done: Vec<(usize, Vec<R>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|_| {
                let state = make();
                let work = &work;
                scope.spawn(move || work(state))
            })
            .collect();
        let mut done = work(make());
        for h in handles {
            done.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        done
    });
    done.sort_unstable_by_key(|&(k, _)| k);
    let mut out = Vec::with_capacity(items.len());
    for (_, part) in done {
        out.extend(part);
    }
    out
}

/// Maps every item of `items` with `f`, the items taken one at a time by as many threads
/// as [`threads`] gives (a thread takes the next item when it finishes one, so items of
/// unequal cost spread evenly), and returns the results in the input's order. For a few
/// large items each: the manifests of a mesh's nodes, say.
pub fn map_each<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let _section = Section::start();
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (next, f) = (&next, &f);
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(k) else { break };
                        mine.push((k, f(item)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_unstable_by_key(|&(k, _)| k);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_work_waits_for_a_section_under_way() {
        use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
        let section = Section::start();
        let ended = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let background = scope.spawn(|| {
                map_batches_beside(
                    &[1, 2, 3],
                    1,
                    || (),
                    |(), &x| {
                        assert!(ended.load(SeqCst), "background work ran inside a section");
                        x * 2
                    },
                )
            });
            std::thread::sleep(std::time::Duration::from_millis(30));
            ended.store(true, SeqCst);
            drop(section);
            assert_eq!(background.join().unwrap(), vec![2, 4, 6]);
        });
    }

    #[test]
    fn the_thread_knob_takes_a_small_positive_number_only() {
        assert_eq!(threads_from(Some("3")), Some(3));
        assert_eq!(threads_from(Some(" 1 ")), Some(1));
        assert_eq!(threads_from(Some("0")), None);
        assert_eq!(threads_from(Some("65")), None);
        assert_eq!(threads_from(Some("many")), None);
        assert_eq!(threads_from(None), None);
    }

    #[test]
    fn chunks_come_back_in_order() {
        let items: Vec<usize> = (0..1000).collect();
        let doubled = map_chunks(&items, 2, |part| part.iter().map(|i| i * 2).collect());
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn parts_come_back_in_order_and_whole_however_few_the_items() {
        let items: Vec<usize> = (0..1000).collect();
        for min_len in [0, 2, 999, 1000, 5000] {
            let parts = map_parts(&items, min_len, |part| part.iter().map(|i| i * 2).collect());
            assert!(!parts.is_empty() && parts.len() <= threads().max(1));
            if min_len > items.len() {
                assert_eq!(parts.len(), 1, "under min_len, one part on the caller");
            }
            let joined: Vec<usize> = parts.into_iter().flatten().collect();
            assert_eq!(joined, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
        assert_eq!(
            map_parts(&[] as &[usize], 2, |p| p.to_vec()),
            vec![Vec::<usize>::new()]
        );
    }

    #[test]
    fn batches_come_back_in_order_whatever_their_size() {
        let items: Vec<usize> = (0..1001).collect();
        for batch in [0, 1, 7, 64, 5000] {
            let made = std::sync::atomic::AtomicUsize::new(0);
            let doubled = map_batches_with(
                &items,
                batch,
                || made.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                |_, &i| {
                    if i % 13 == 0 {
                        std::thread::yield_now();
                    }
                    i * 2
                },
            );
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
            assert!(made.into_inner() <= threads().max(1));
        }
        assert!(map_batches_with(&[] as &[usize], 8, || (), |(), &i| i).is_empty());
    }

    #[test]
    fn each_item_comes_back_in_order() {
        let items: Vec<usize> = (0..1000).collect();
        // Unequal costs, so threads finish out of order.
        let squared = map_each(&items, |&i| {
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * i
        });
        assert_eq!(squared, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert!(map_each(&[] as &[usize], |&i| i).is_empty());
    }
}
