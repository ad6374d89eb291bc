//! The DLPack 1.x C structures, declared here with `#[repr(C)]` from the `dlpack.h` header
//! (version 1.0; 1.1 adds only type codes and a flag stridex does not use), and the mapping
//! between [`DType`] and [`DLDataType`].
//!
//! Field order, types and sizes follow the header exactly (a unit test checks the sizes and
//! offsets on this target), so a pointer to one of these structs can be passed to, or taken
//! from, any DLPack producer or consumer.

use std::ffi::c_void;

use crate::element::DType;
use crate::error::{Error, Result};

/// A DLPack ABI version (`DLPackVersion`): consumers must refuse a major version they do not
/// know, and may accept any minor version of theirs.
///
/// ```
/// use stridex::interop::dlpack::DLPACK_VERSION;
/// assert_eq!((DLPACK_VERSION.major, DLPACK_VERSION.minor), (1, 0));
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DLPackVersion {
    /// Incompatible ABI changes.
    pub major: u32,
    /// Compatible additions.
    pub minor: u32,
}

/// The version stridex produces, and whose major version it accepts (`1.0`).
pub const DLPACK_VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 0 };

/// `flags` bit: the consumer must not write the memory (`DLPACK_FLAG_BITMASK_READ_ONLY`).
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;

/// `flags` bit: the producer made a copy for this export, so the consumer owns the memory
/// alone (`DLPACK_FLAG_BITMASK_IS_COPIED`).
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;

/// The `DLDeviceType` codes (a C enum, an `int32` in the ABI). stridex reads memory of
/// [`device_type::CPU`] and [`device_type::CUDA_HOST`] (pinned host memory, ordinary CPU
/// memory to read) and refuses every other device.
pub mod device_type {
    /// `kDLCPU`.
    pub const CPU: i32 = 1;
    /// `kDLCUDA`.
    pub const CUDA: i32 = 2;
    /// `kDLCUDAHost`: page-locked host memory allocated through CUDA.
    pub const CUDA_HOST: i32 = 3;
    /// `kDLOpenCL`.
    pub const OPENCL: i32 = 4;
    /// `kDLVulkan`.
    pub const VULKAN: i32 = 7;
    /// `kDLMetal`.
    pub const METAL: i32 = 8;
    /// `kDLVPI`.
    pub const VPI: i32 = 9;
    /// `kDLROCM`.
    pub const ROCM: i32 = 10;
    /// `kDLROCMHost`.
    pub const ROCM_HOST: i32 = 11;
    /// `kDLExtDev`.
    pub const EXT_DEV: i32 = 12;
    /// `kDLCUDAManaged`.
    pub const CUDA_MANAGED: i32 = 13;
    /// `kDLOneAPI`.
    pub const ONE_API: i32 = 14;
    /// `kDLWebGPU`.
    pub const WEB_GPU: i32 = 15;
    /// `kDLHexagon`.
    pub const HEXAGON: i32 = 16;
    /// `kDLMAIA`.
    pub const MAIA: i32 = 17;

    /// The header's name of a device type, for messages.
    pub(crate) fn name(code: i32) -> &'static str {
        match code {
            CPU => "kDLCPU",
            CUDA => "kDLCUDA",
            CUDA_HOST => "kDLCUDAHost",
            OPENCL => "kDLOpenCL",
            VULKAN => "kDLVulkan",
            METAL => "kDLMetal",
            VPI => "kDLVPI",
            ROCM => "kDLROCM",
            ROCM_HOST => "kDLROCMHost",
            EXT_DEV => "kDLExtDev",
            CUDA_MANAGED => "kDLCUDAManaged",
            ONE_API => "kDLOneAPI",
            WEB_GPU => "kDLWebGPU",
            HEXAGON => "kDLHexagon",
            MAIA => "kDLMAIA",
            _ => "an unknown device type",
        }
    }
}

/// The `DLDataTypeCode` codes (`DLDataType::code`).
pub mod type_code {
    /// `kDLInt`: signed integers.
    pub const INT: u8 = 0;
    /// `kDLUInt`: unsigned integers.
    pub const UINT: u8 = 1;
    /// `kDLFloat`: IEEE floats.
    pub const FLOAT: u8 = 2;
    /// `kDLOpaqueHandle`.
    pub const OPAQUE_HANDLE: u8 = 3;
    /// `kDLBfloat`: bfloat16.
    pub const BFLOAT: u8 = 4;
    /// `kDLComplex`.
    pub const COMPLEX: u8 = 5;
    /// `kDLBool`.
    pub const BOOL: u8 = 6;
}

/// Where the memory lives (`DLDevice`).
///
/// ```
/// use stridex::interop::dlpack::DLDevice;
/// assert_eq!(DLDevice::CPU.device_type, 1);
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DLDevice {
    /// A [`device_type`] code.
    pub device_type: i32,
    /// The device's index (0 for the CPU).
    pub device_id: i32,
}

impl DLDevice {
    /// The CPU (`kDLCPU`, id 0): where every stridex tensor lives.
    pub const CPU: DLDevice = DLDevice {
        device_type: device_type::CPU,
        device_id: 0,
    };
}

/// An element type (`DLDataType`): a type code, a width in bits and a number of SIMD lanes
/// (stridex elements have one).
///
/// ```
/// use stridex::interop::dlpack::DLDataType;
/// use stridex::DType;
/// let bf = DLDataType::from_dtype(DType::BF16);
/// assert_eq!((bf.code, bf.bits, bf.lanes), (4, 16, 1));
/// assert_eq!(bf.to_dtype()?, DType::BF16);
/// # Ok::<(), stridex::Error>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DLDataType {
    /// A [`type_code`].
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes per element (1 for scalars).
    pub lanes: u16,
}

impl DLDataType {
    /// The DLPack type of a stridex element type (one lane).
    ///
    /// ```
    /// use stridex::interop::dlpack::{type_code, DLDataType};
    /// let u = DLDataType::from_dtype(stridex::DType::U16);
    /// assert_eq!((u.code, u.bits), (type_code::UINT, 16));
    /// ```
    #[must_use]
    pub fn from_dtype(dtype: DType) -> DLDataType {
        let code = match dtype {
            DType::F16 | DType::F32 | DType::F64 => type_code::FLOAT,
            DType::BF16 => type_code::BFLOAT,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => type_code::INT,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => type_code::UINT,
        };
        DLDataType {
            code,
            // At most 8 bytes: fits a u8 of bits.
            bits: (dtype.size() * 8) as u8,
            lanes: 1,
        }
    }

    /// The stridex element type of this DLPack type.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the type found and the types accepted if it has more
    /// than one lane or is not one of stridex's element types (`bool`, complex, float8,
    /// opaque handles, odd widths).
    ///
    /// ```
    /// use stridex::interop::dlpack::{type_code, DLDataType};
    /// let f8 = DLDataType { code: type_code::FLOAT, bits: 8, lanes: 1 };
    /// assert!(f8.to_dtype().unwrap_err().to_string().contains("float8"));
    /// ```
    pub fn to_dtype(self) -> Result<DType> {
        let dtype = match (self.code, self.bits) {
            _ if self.lanes != 1 => None,
            (type_code::FLOAT, 16) => Some(DType::F16),
            (type_code::FLOAT, 32) => Some(DType::F32),
            (type_code::FLOAT, 64) => Some(DType::F64),
            (type_code::BFLOAT, 16) => Some(DType::BF16),
            (type_code::INT, 8) => Some(DType::I8),
            (type_code::INT, 16) => Some(DType::I16),
            (type_code::INT, 32) => Some(DType::I32),
            (type_code::INT, 64) => Some(DType::I64),
            (type_code::UINT, 8) => Some(DType::U8),
            (type_code::UINT, 16) => Some(DType::U16),
            (type_code::UINT, 32) => Some(DType::U32),
            (type_code::UINT, 64) => Some(DType::U64),
            _ => None,
        };
        dtype.ok_or_else(|| Error::InvalidArgument {
            op: "from_dlpack",
            message: format!(
                "the DLPack tensor holds {self}, which is not a stridex element type (stridex \
                 reads one-lane int8..int64, uint8..uint64, float16/32/64 and bfloat16); \
                 convert it first: a bool tensor with .astype(np.uint8) in NumPy or \
                 .to(torch.uint8) in PyTorch, a complex one as a float view of twice the \
                 length (.view(np.float32) in NumPy, torch.view_as_real in PyTorch)"
            ),
        })
    }
}

impl std::fmt::Display for DLDataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.code {
            type_code::INT => "int",
            type_code::UINT => "uint",
            type_code::FLOAT => "float",
            type_code::OPAQUE_HANDLE => "opaque handle ",
            type_code::BFLOAT => "bfloat",
            type_code::COMPLEX => "complex",
            type_code::BOOL => "bool",
            _ => "type code ",
        };
        match self.code {
            type_code::INT..=type_code::BOOL => write!(f, "{name}{}", self.bits)?,
            code => write!(f, "{name}{code} of {} bits", self.bits)?,
        }
        if self.lanes != 1 {
            write!(f, " x {} lanes", self.lanes)?;
        }
        Ok(())
    }
}

/// A strided tensor without ownership (`DLTensor`): the element at index `[0, 0, ..]` is at
/// `data + byte_offset`, element `i` at that address plus `sum(i[d] * strides[d])` elements.
///
/// `shape` and `strides` point to `ndim` entries each; `strides` may be null for a compact
/// row-major tensor. Strides count elements, not bytes, and may be negative or zero.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DLTensor {
    /// The start of the allocation (or the first element when `byte_offset` is 0).
    pub data: *mut c_void,
    /// Where `data` lives.
    pub device: DLDevice,
    /// Number of dims.
    pub ndim: i32,
    /// The element type.
    pub dtype: DLDataType,
    /// `ndim` sizes.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for compact row-major.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// A tensor handed from a producer to a consumer, pre-1.0 form (`DLManagedTensor`, the
/// `"dltensor"` capsule of the Python protocol): no version, no flags, so no way to say
/// "read-only". The consumer calls `deleter(self)` exactly once when it is done.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context (stridex puts nothing here; its state follows the struct).
    pub manager_ctx: *mut c_void,
    /// Frees everything the producer allocated for this tensor; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// A tensor handed from a producer to a consumer, DLPack 1.x form
/// (`DLManagedTensorVersioned`, the `"dltensor_versioned"` capsule): the ABI version first,
/// then the deleter (both stay where they are in every future major version, so a consumer
/// can refuse an unknown version and still free the tensor), flags, and the tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The producer's DLPack version.
    pub version: DLPackVersion,
    /// The producer's context (stridex puts nothing here; its state follows the struct).
    pub manager_ctx: *mut c_void,
    /// Frees everything the producer allocated for this tensor; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// [`DLPACK_FLAG_BITMASK_READ_ONLY`], [`DLPACK_FLAG_BITMASK_IS_COPIED`].
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn structs_have_the_c_layout_of_dlpack_h() {
        assert_eq!(size_of::<DLPackVersion>(), 8);
        assert_eq!(size_of::<DLDevice>(), 8);
        assert_eq!(size_of::<DLDataType>(), 4);
        assert_eq!(offset_of!(DLTensor, device), 8);
        assert_eq!(offset_of!(DLTensor, ndim), 16);
        assert_eq!(offset_of!(DLTensor, dtype), 20);
        assert_eq!(offset_of!(DLTensor, shape), 24);
        assert_eq!(offset_of!(DLTensor, strides), 32);
        assert_eq!(offset_of!(DLTensor, byte_offset), 40);
        assert_eq!(size_of::<DLTensor>(), 48);
        assert_eq!(offset_of!(DLManagedTensor, manager_ctx), 48);
        assert_eq!(offset_of!(DLManagedTensor, deleter), 56);
        assert_eq!(size_of::<DLManagedTensor>(), 64);
        assert_eq!(offset_of!(DLManagedTensorVersioned, manager_ctx), 8);
        assert_eq!(offset_of!(DLManagedTensorVersioned, deleter), 16);
        assert_eq!(offset_of!(DLManagedTensorVersioned, flags), 24);
        assert_eq!(offset_of!(DLManagedTensorVersioned, dl_tensor), 32);
        assert_eq!(size_of::<DLManagedTensorVersioned>(), 80);
    }

    #[test]
    fn every_dtype_maps_both_ways() {
        use crate::element::DType::*;
        for d in [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64] {
            let dl = DLDataType::from_dtype(d);
            assert_eq!(dl.to_dtype().unwrap(), d);
            assert_eq!(dl.bits as usize, d.size() * 8);
        }
        for bad in [
            DLDataType {
                code: type_code::BOOL,
                bits: 8,
                lanes: 1,
            },
            DLDataType {
                code: type_code::FLOAT,
                bits: 32,
                lanes: 4,
            },
            DLDataType {
                code: type_code::COMPLEX,
                bits: 64,
                lanes: 1,
            },
            DLDataType {
                code: type_code::INT,
                bits: 4,
                lanes: 1,
            },
            DLDataType {
                code: type_code::BFLOAT,
                bits: 32,
                lanes: 1,
            },
            DLDataType {
                code: 99,
                bits: 8,
                lanes: 1,
            },
        ] {
            let msg = bad.to_dtype().unwrap_err().to_string();
            assert!(msg.contains("not a stridex element type"), "{msg}");
        }
        let four = DLDataType {
            code: type_code::FLOAT,
            bits: 32,
            lanes: 4,
        };
        assert_eq!(four.to_string(), "float32 x 4 lanes");
        assert_eq!(
            DLDataType {
                code: 99,
                bits: 8,
                lanes: 1
            }
            .to_string(),
            "type code 99 of 8 bits"
        );
    }
}
