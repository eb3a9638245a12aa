//! What a call would otherwise allocate every time, kept for the next one: storage buffers
//! (outputs, partial sums), readback staging, the staging rings of large transfers, uniform
//! parameter blocks, bind groups and timestamp query sets. Each pool is bounded, so a loop of
//! calls keeps the process's memory flat:
//!
//! | pool | bound |
//! |---|---|
//! | storage buffers | 64 buffers and 256 MiB; buffers over 64 MiB are never pooled |
//! | readback staging | 16 buffers and 64 MiB |
//! | chunked uploads' and readbacks' staging ([`crate::transfer`]) | 3 buffers of 8 MiB each way |
//! | uniform blocks (by contents, ≤ 256 bytes each) | 256 |
//! | bind groups (by pipeline and buffer ids) | 512 |
//! | timestamp query sets | 16 |
//!
//! Pipelines are cached separately (`crate::pipeline`), one per (shader, entry point,
//! constants) used. Bind groups hold their buffers alive, so a buffer that leaves tilekit (a
//! [`crate::DeviceBuffer`] dropped and not pooled) first drops the bind groups that name it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Storage buffers kept for reuse.
pub const MAX_POOLED_BUFFERS: usize = 64;
/// Bytes of storage buffers kept for reuse.
pub const MAX_POOLED_BYTES: u64 = 256 << 20;
/// Buffers larger than this are freed, not pooled.
pub const MAX_POOLED_BUFFER: u64 = 64 << 20;
/// Readback staging buffers kept.
pub const MAX_STAGING: usize = 16;
/// Bytes of readback staging kept.
pub const MAX_STAGING_BYTES: u64 = 64 << 20;
/// Uniform blocks kept.
pub const MAX_UNIFORMS: usize = 256;
/// Bind groups kept.
pub const MAX_BIND_GROUPS: usize = 512;
/// Timestamp query sets kept.
pub const MAX_TIMERS: usize = 16;
/// Prepared launch sequences kept per Gpu (a family's launches, bind groups and scratch for one input).
pub const MAX_RECIPES: usize = 64;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh identity for a buffer tilekit owns (never reused, unlike addresses).
pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// A buffer bound to a kernel: its tilekit identity (0 = unknown to tilekit, never cached) and
/// the buffer.
#[derive(Clone, Copy)]
pub struct Bind<'a> {
    pub(crate) id: u64,
    pub(crate) buffer: &'a wgpu::Buffer,
    /// The bytes its data takes, rounded up to a word, where tilekit knows them (a
    /// [`crate::DeviceBuffer`], whose buffer is padded to 16 bytes).
    pub(crate) data: Option<u64>,
    /// Bind only the data's bytes, so that the kernel's `arrayLength` is the data's length (a
    /// kernel of one's own, [`crate::Gpu::dispatch`]); tilekit's kernels see the whole buffer.
    pub(crate) exact: bool,
}

impl<'a> Bind<'a> {
    /// A buffer tilekit did not create (a caller's own): bound as is, its bind groups not cached.
    pub fn raw(buffer: &'a wgpu::Buffer) -> Bind<'a> {
        Bind::whole(0, buffer)
    }

    /// The whole of `buffer`, known to tilekit as `id`.
    pub(crate) fn whole(id: u64, buffer: &'a wgpu::Buffer) -> Bind<'a> {
        Bind {
            id,
            buffer,
            data: None,
            exact: false,
        }
    }

    /// The same buffer bound to its data's bytes only (see `exact`); its bind groups are not
    /// cached, since the same buffer bound whole may share the pipeline.
    pub(crate) fn exact(self) -> Bind<'a> {
        Bind {
            id: 0,
            exact: true,
            ..self
        }
    }
}

/// A uniform block of kernel parameters, shared by every call with the same contents.
#[derive(Clone, Debug)]
pub struct Uniform {
    pub(crate) id: u64,
    pub(crate) buffer: wgpu::Buffer,
}

impl Uniform {
    /// For binding.
    pub fn bind(&self) -> Bind<'_> {
        Bind::whole(self.id, &self.buffer)
    }
}

/// Timestamp queries for one timed submission: the query set, its resolve buffer and the
/// mappable copy.
pub(crate) struct Timer {
    pub set: wgpu::QuerySet,
    pub resolve: wgpu::Buffer,
    pub staging: wgpu::Buffer,
}

/// What a family's prepared launches depend on: the buffers they bind (by id), the element type
/// and the family's own parameters (sizes, operator, variant).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct RecipeKey {
    pub family: &'static str,
    pub ty: std::any::TypeId,
    pub buffers: Vec<u64>,
    pub params: Vec<u64>,
}

type Recipe = Arc<dyn std::any::Any + Send + Sync>;

/// A buffer owned by something cached inside the pool (a recipe's scratch): given back to the
/// pool when dropped, through a weak reference, so that the cache does not keep its own pool
/// alive.
pub(crate) struct Detached {
    pub id: u64,
    pub buffer: wgpu::Buffer,
    pool: Weak<Inner>,
}

impl Detached {
    pub(crate) fn new(id: u64, buffer: wgpu::Buffer, pool: &Arc<Inner>) -> Detached {
        Detached {
            id,
            buffer,
            pool: Arc::downgrade(pool),
        }
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.upgrade() {
            pool.give_back(self.id, self.buffer.clone());
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct BindKey {
    pub pipeline: usize,
    pub entries: Vec<(u32, u64)>,
}

struct Lru<K, V> {
    map: HashMap<K, (u64, V)>,
    clock: u64,
    cap: usize,
}

impl<K: std::hash::Hash + Eq + Clone, V: Clone> Lru<K, V> {
    fn new(cap: usize) -> Self {
        Lru {
            map: HashMap::new(),
            clock: 0,
            cap,
        }
    }
    fn get(&mut self, k: &K) -> Option<V> {
        self.clock += 1;
        let now = self.clock;
        self.map.get_mut(k).map(|e| {
            e.0 = now;
            e.1.clone()
        })
    }
    /// Insert, and hand back what made room (or was replaced) so that the caller drops it after
    /// releasing its lock: a recipe's drop gives buffers back, which takes this pool's locks.
    fn insert(&mut self, k: K, v: V) -> Option<V> {
        let mut evicted = None;
        if self.map.len() >= self.cap && !self.map.contains_key(&k) {
            if let Some(old) = self.map.iter().min_by_key(|e| e.1 .0).map(|e| e.0.clone()) {
                evicted = self.map.remove(&old).map(|e| e.1);
            }
        }
        self.clock += 1;
        self.map.insert(k, (self.clock, v)).map(|e| e.1).or(evicted)
    }
}

#[derive(Default)]
struct Free {
    // (bytes, usage bits) → buffers with their ids
    buffers: HashMap<(u64, u32), Vec<(u64, wgpu::Buffer)>>,
    count: usize,
    bytes: u64,
}

pub(crate) struct Inner {
    free: Mutex<Free>,
    staging: Mutex<Vec<wgpu::Buffer>>,
    upload_ring: Mutex<Vec<wgpu::Buffer>>,
    read_ring: Mutex<Vec<wgpu::Buffer>>,
    uniforms: Mutex<Lru<Vec<u8>, Uniform>>,
    bind_groups: Mutex<Lru<BindKey, wgpu::BindGroup>>,
    recipes: Mutex<Lru<RecipeKey, Recipe>>,
    pub(crate) timers: Mutex<Vec<Timer>>,
}

/// Which way a chunked transfer goes: host to GPU (an upload) or back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Way {
    Up,
    Down,
}

/// The pools of one [`crate::Gpu`].
#[derive(Clone)]
pub struct Pools {
    pub(crate) inner: Arc<Inner>,
}

impl Default for Pools {
    fn default() -> Self {
        Pools {
            inner: Arc::new(Inner {
                free: Mutex::new(Free::default()),
                staging: Mutex::new(Vec::new()),
                upload_ring: Mutex::new(Vec::new()),
                read_ring: Mutex::new(Vec::new()),
                uniforms: Mutex::new(Lru::new(MAX_UNIFORMS)),
                bind_groups: Mutex::new(Lru::new(MAX_BIND_GROUPS)),
                recipes: Mutex::new(Lru::new(MAX_RECIPES)),
                timers: Mutex::new(Vec::new()),
            }),
        }
    }
}

/// How many of each pooled thing exist now (for tests of the bounds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Free storage buffers kept.
    pub buffers: usize,
    /// Their bytes.
    pub buffer_bytes: u64,
    /// Staging buffers kept.
    pub staging: usize,
    /// Uniform blocks kept.
    pub uniforms: usize,
    /// Bind groups kept.
    pub bind_groups: usize,
    /// Prepared launch sequences kept.
    pub recipes: usize,
    /// Timestamp query sets kept.
    pub timers: usize,
    /// Pipelines built and cached (by module, entry point and constants).
    pub pipelines: usize,
}

impl Inner {
    /// A free storage buffer of exactly `bytes` and `usage`, if one is pooled.
    pub(crate) fn take(
        &self,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> Option<(u64, wgpu::Buffer)> {
        let mut f = self.free.lock().ok()?;
        let list = f.buffers.get_mut(&(bytes, usage.bits()))?;
        let got = list.pop()?;
        f.count -= 1;
        f.bytes -= bytes;
        Some(got)
    }

    /// A buffer tilekit no longer uses: kept if the pool has room, else its bind groups are
    /// dropped and it is freed.
    pub(crate) fn give_back(&self, id: u64, buffer: wgpu::Buffer) {
        let bytes = buffer.size();
        let key = (bytes, buffer.usage().bits());
        if let Ok(mut f) = self.free.lock() {
            if bytes <= MAX_POOLED_BUFFER
                && f.count < MAX_POOLED_BUFFERS
                && f.bytes + bytes <= MAX_POOLED_BYTES
            {
                f.count += 1;
                f.bytes += bytes;
                f.buffers.entry(key).or_default().push((id, buffer));
                return;
            }
        }
        self.forget(id);
    }

    /// Drop every cached bind group and recipe that names buffer `id`.
    pub(crate) fn forget(&self, id: u64) {
        if let Ok(mut b) = self.bind_groups.lock() {
            b.map.retain(|k, _| k.entries.iter().all(|e| e.1 != id));
        }
        // Dropped after the lock is released (see `Lru::insert`).
        let _gone: Vec<Recipe> = match self.recipes.lock() {
            Ok(mut r) => {
                let names: Vec<RecipeKey> = r
                    .map
                    .keys()
                    .filter(|k| k.buffers.contains(&id))
                    .cloned()
                    .collect();
                names
                    .iter()
                    .filter_map(|k| r.map.remove(k))
                    .map(|e| e.1)
                    .collect()
            }
            Err(_) => Vec::new(),
        };
    }

    /// A family's prepared launches for `key`, if they were made (and kept with
    /// [`Inner::keep_recipe`]): the per-call work
    /// of choosing a plan, building shaders' names, allocating scratch buffers and binding them
    /// is done once per input buffer and parameters, not on every call (issue 13, the per-call
    /// tax). A recipe owns its scratch buffers; launches from several calls run in queue order,
    /// so calls sharing one never overlap on the GPU.
    pub(crate) fn recipe<R: std::any::Any + Send + Sync>(&self, key: &RecipeKey) -> Option<Arc<R>> {
        // A learner's substituted shader must run, not the pipelines prepared before it.
        if crate::pipeline::substituting() {
            return None;
        }
        let hit = self.recipes.lock().ok().and_then(|mut r| r.get(key));
        hit.and_then(|r| r.downcast::<R>().ok())
    }

    /// Keep `made` as the recipe for `key` (not while a shader is substituted).
    pub(crate) fn keep_recipe<R: std::any::Any + Send + Sync>(&self, key: RecipeKey, made: Arc<R>) {
        if crate::pipeline::substituting() {
            return;
        }
        let evicted = self
            .recipes
            .lock()
            .ok()
            .and_then(|mut r| r.insert(key, made as Recipe));
        drop(evicted);
    }

    pub(crate) fn staging(&self, device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        if let Ok(mut s) = self.staging.lock() {
            if let Some(i) = s.iter().position(|b| b.size() == bytes) {
                return s.swap_remove(i);
            }
        }
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("tilekit readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    pub(crate) fn staging_back(&self, buffer: wgpu::Buffer) {
        if let Ok(mut s) = self.staging.lock() {
            let total: u64 = s.iter().map(|b| b.size()).sum();
            if s.len() < MAX_STAGING && total + buffer.size() <= MAX_STAGING_BYTES {
                s.push(buffer);
            }
        }
    }

    /// A staging buffer of `bytes` for the chunked transfers going `way`: an upload's mapped for
    /// writing, a read's unmapped.
    pub(crate) fn transfer_staging(
        &self,
        device: &wgpu::Device,
        bytes: u64,
        way: Way,
    ) -> wgpu::Buffer {
        if let Ok(mut s) = self.ring(way).lock() {
            if let Some(i) = s.iter().position(|b| b.size() == bytes) {
                return s.swap_remove(i);
            }
        }
        let (label, usage) = match way {
            Way::Up => (
                "tilekit upload",
                wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            ),
            Way::Down => (
                "tilekit chunked readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
        };
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage,
            mapped_at_creation: way == Way::Up,
        })
    }

    /// A transfer's staging buffer back, in the state [`Inner::transfer_staging`] hands it out
    /// (at most `keep` are kept each way).
    pub(crate) fn transfer_staging_back(&self, buffer: wgpu::Buffer, way: Way, keep: usize) {
        if let Ok(mut s) = self.ring(way).lock() {
            if s.len() < keep {
                s.push(buffer);
            }
        }
    }

    fn ring(&self, way: Way) -> &Mutex<Vec<wgpu::Buffer>> {
        match way {
            Way::Up => &self.upload_ring,
            Way::Down => &self.read_ring,
        }
    }

    pub(crate) fn uniform(&self, device: &wgpu::Device, bytes: &[u8]) -> Uniform {
        use wgpu::util::DeviceExt;
        if let Some(u) = self
            .uniforms
            .lock()
            .ok()
            .and_then(|mut u| u.get(&bytes.to_vec()))
        {
            return u;
        }
        let u = Uniform {
            id: next_id(),
            buffer: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("tilekit params"),
                contents: bytes,
                usage: wgpu::BufferUsages::UNIFORM,
            }),
        };
        if bytes.len() <= 256 {
            if let Ok(mut c) = self.uniforms.lock() {
                c.insert(bytes.to_vec(), u.clone());
            }
        }
        u
    }

    /// The cached bind group for `key`, if any.
    pub(crate) fn bind_group(&self, key: &BindKey) -> Option<wgpu::BindGroup> {
        self.bind_groups.lock().ok().and_then(|mut c| c.get(key))
    }

    /// Keep `group` for `key`.
    pub(crate) fn keep_bind_group(&self, key: BindKey, group: wgpu::BindGroup) {
        if let Ok(mut c) = self.bind_groups.lock() {
            c.insert(key, group);
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let f = self
            .free
            .lock()
            .map(|f| (f.count, f.bytes))
            .unwrap_or((0, 0));
        PoolStats {
            buffers: f.0,
            buffer_bytes: f.1,
            staging: self.staging.lock().map(|s| s.len()).unwrap_or(0),
            uniforms: self.uniforms.lock().map(|u| u.map.len()).unwrap_or(0),
            bind_groups: self.bind_groups.lock().map(|b| b.map.len()).unwrap_or(0),
            recipes: self.recipes.lock().map(|r| r.map.len()).unwrap_or(0),
            timers: self.timers.lock().map(|t| t.len()).unwrap_or(0),
            // The pipeline cache is the Gpu's, not a pool's: `Gpu::stats` fills it in.
            pipelines: 0,
        }
    }
}
