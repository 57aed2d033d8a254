//! `RecordsBuffer`: room in wasm memory that JS fills with a restore's storage records (the
//! records layout of `records.rs`), handed to `WasqCore.restore`. The storage's buffers are
//! copied once, where building a JS buffer and then copying it into the wasm copied every record
//! twice (~19 % of recovering 100,000 messages).

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// Records bytes in wasm memory, filled by JS through [`RecordsBuffer::view`].
#[wasm_bindgen]
pub struct RecordsBuffer {
    bytes: Vec<u8>,
}

impl RecordsBuffer {
    /// `size` zeroed bytes, or `None` when the memory cannot hold them.
    pub fn new(size: usize) -> Option<Self> {
        let bytes = zeroed(size)?;
        // The restored engine takes about as much heap again as its records: reserve it in one
        // `memory.grow` (freed at once, dlmalloc keeps it) rather than in many steps.
        let mut room: Vec<u8> = Vec::new();
        let _ = room.try_reserve_exact(size.saturating_mul(3) / 2);
        drop(room);
        Some(RecordsBuffer { bytes })
    }

    /// The bytes JS wrote.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// `size` zero bytes from the allocator, which leaves fresh pages from `memory.grow` as they are
/// (zero already): `vec![0; size]` would abort rather than fail, and a `resize` or a reused block
/// wrote the zeros (10–18 % of a restore).
fn zeroed(size: usize) -> Option<Vec<u8>> {
    if size == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(size).ok()?;
    // SAFETY: the layout's size is non-zero (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `size` bytes (the
    // capacity), all of them initialised (zero).
    Some(unsafe { Vec::from_raw_parts(ptr, size, size) })
}

impl From<Vec<u8>> for RecordsBuffer {
    fn from(bytes: Vec<u8>) -> Self {
        RecordsBuffer { bytes }
    }
}

#[wasm_bindgen]
impl RecordsBuffer {
    /// The bytes as a `Uint8Array` over wasm memory. It is valid only until the next call into
    /// the wasm (which may grow the memory and detach it), so JS fills it at once.
    pub fn view(&mut self) -> Uint8Array {
        // SAFETY: the view covers exactly the vector's initialised bytes, and the vector is not
        // touched by Rust while JS writes (JS calls nothing in between, see above).
        unsafe { Uint8Array::view_mut_raw(self.bytes.as_mut_ptr(), self.bytes.len()) }
    }
}
