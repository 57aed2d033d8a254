//! The wasm heap grows in steps of a sixteenth of its size, not one allocation at a time.
//!
//! Rust's wasm allocator (dlmalloc) grows linear memory by about what each allocation lacks, and
//! `memory.grow` is slow in V8: about 1 ms a call in Node 20 on these machines, against ~0.2 s
//! for one grow of 100 MB and touching it. Recovering 100,000 messages grew the heap from 36 to
//! 155 MB in ~1,900 calls and spent ~4 s on them, more than the restore itself. Asking dlmalloc
//! for a large block whenever it has just grown, and freeing it at once, makes the growth
//! geometric: the freed block joins dlmalloc's free space (wasm memory is never handed back), and
//! the next allocations use it.

use core::arch::wasm32;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

const PAGE: usize = 65_536;
/// Below this the step is not worth it: small heaps grow a few times at most.
const MIN_STEP: usize = 1 << 20;

pub struct GrowInSteps;

/// Memory size (pages) after the last step; growth beyond it means dlmalloc just grew.
static SEEN_PAGES: AtomicUsize = AtomicUsize::new(0);

fn after_alloc() {
    let pages = wasm32::memory_size(0);
    if pages <= SEEN_PAGES.load(Ordering::Relaxed) {
        return;
    }
    // A sixteenth: ~24 grows from 36 to 155 MB, and at most ~6 % of the heap reserved unused.
    let step = (pages * PAGE / 16).max(MIN_STEP);
    if let Ok(layout) = Layout::from_size_align(step, 1) {
        // SAFETY: a non-zero size with a valid alignment; the block is freed unused right away.
        // A null result (memory exhausted) just means no step this time.
        unsafe {
            let block = System.alloc(layout);
            if !block.is_null() {
                System.dealloc(block, layout);
            }
        }
    }
    SEEN_PAGES.store(wasm32::memory_size(0), Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; `after_alloc` only adds a balanced
// alloc/dealloc pair of its own.
unsafe impl GlobalAlloc for GrowInSteps {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc(layout) };
        after_alloc();
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        after_alloc();
        ptr
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let out = unsafe { System.realloc(ptr, layout, new_size) };
        after_alloc();
        out
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: GrowInSteps = GrowInSteps;
