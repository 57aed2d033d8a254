//! Storage records and change batches cross the boundary as one byte buffer each (the batch
//! writer is `crate::changes::PackedBatch`, which the native benches use too).
//!
//! Building a JS array of `[key, Uint8Array]` pairs costs several boundary calls per record, and
//! reading one back costs as many again. One buffer costs a single copy each way. The JS side
//! (`pkg-template/src/storage/batch.js`) reads and writes the same layout. Every length is a
//! little-endian u32:
//!
//! - a batch: `put_count`, `del_count`, then `put_count` × (`key_len`, key, `value_len`, value),
//!   then `del_count` × (`key_len`, key) (FileStorage's batch payload after its kind byte).
//! - records: (`key_len`, key, `value_len`, value) repeated to the end of the buffer.
//!
//! Keys are UTF-8.
//!
//! A restore's records are written by JS straight into wasm memory (a [`RecordsBuffer`]): the
//! storage's buffers are copied once, where building a JS buffer and then copying it into the
//! wasm copied every record twice (~19 % of recovering 100,000 messages).

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

/// The records of a records buffer, in order. A malformed buffer ends the iteration early and
/// leaves the reason in [`Records::error`], which the caller must check once iteration is over.
pub struct Records<'a> {
    rest: &'a [u8],
    error: Option<&'static str>,
}

impl<'a> Records<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Records {
            rest: bytes,
            error: None,
        }
    }

    /// Why iteration stopped before the end of the buffer, if it did.
    pub fn error(&self) -> Option<&'static str> {
        self.error
    }

    fn take(&mut self) -> Option<&'a [u8]> {
        let Some((len, rest)) = self.rest.split_first_chunk::<4>() else {
            return self.fail("a record is cut short");
        };
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return self.fail("a record is cut short");
        }
        let (bytes, rest) = rest.split_at(len);
        self.rest = rest;
        Some(bytes)
    }

    fn fail<T>(&mut self, why: &'static str) -> Option<T> {
        self.error = Some(why);
        self.rest = &[];
        None
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = (&'a str, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let key = self.take()?;
        let value = self.take()?;
        let Ok(key) = std::str::from_utf8(key) else {
            return self.fail("a record key is not UTF-8");
        };
        Some((key, value))
    }
}
