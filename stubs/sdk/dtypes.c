/* CANN's data-type facts as the op_api applies them: names, categories, promotion, can-cast and scalar reads. */
#include <complex.h>
#include <stdio.h>
#include <string.h>

#include "sdk_internal.h"

const char *aclStubDtypeName(aclDataType dtype) {
    switch (dtype) {
    case ACL_FLOAT: return "ACL_FLOAT";
    case ACL_FLOAT16: return "ACL_FLOAT16";
    case ACL_INT8: return "ACL_INT8";
    case ACL_INT32: return "ACL_INT32";
    case ACL_UINT8: return "ACL_UINT8";
    case ACL_INT16: return "ACL_INT16";
    case ACL_UINT16: return "ACL_UINT16";
    case ACL_UINT32: return "ACL_UINT32";
    case ACL_INT64: return "ACL_INT64";
    case ACL_UINT64: return "ACL_UINT64";
    case ACL_DOUBLE: return "ACL_DOUBLE";
    case ACL_BOOL: return "ACL_BOOL";
    case ACL_STRING: return "ACL_STRING";
    case ACL_COMPLEX64: return "ACL_COMPLEX64";
    case ACL_COMPLEX128: return "ACL_COMPLEX128";
    case ACL_BF16: return "ACL_BF16";
    case ACL_INT4: return "ACL_INT4";
    case ACL_UINT1: return "ACL_UINT1";
    case ACL_COMPLEX32: return "ACL_COMPLEX32";
    case ACL_HIFLOAT8: return "ACL_HIFLOAT8";
    case ACL_FLOAT8_E5M2: return "ACL_FLOAT8_E5M2";
    case ACL_FLOAT8_E4M3FN: return "ACL_FLOAT8_E4M3FN";
    case ACL_FLOAT8_E8M0: return "ACL_FLOAT8_E8M0";
    case ACL_FLOAT6_E3M2: return "ACL_FLOAT6_E3M2";
    case ACL_FLOAT6_E2M3: return "ACL_FLOAT6_E2M3";
    case ACL_FLOAT4_E2M1: return "ACL_FLOAT4_E2M1";
    case ACL_FLOAT4_E1M2: return "ACL_FLOAT4_E1M2";
    default: return "an unsupported data type";
    }
}

const char *aclStubDtypeSetName(uint64_t dtypes, char *buf, size_t size) {
    if (size == 0) return buf;
    buf[0] = '\0';
    for (int d = 0; d < 64; d++) {
        if (!(dtypes & ACLSTUB_DT(d))) continue;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", used ? ", " : "", aclStubDtypeName((aclDataType)d));
    }
    return buf;
}

bool aclStubIsComplex(aclDataType t) { return t == ACL_COMPLEX32 || t == ACL_COMPLEX64 || t == ACL_COMPLEX128; }

bool aclStubIsFloating(aclDataType t) {
    switch (t) {
    case ACL_DOUBLE: case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_HIFLOAT8: case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN: case ACL_FLOAT8_E8M0: case ACL_FLOAT6_E3M2: case ACL_FLOAT6_E2M3: case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
        return true;
    default:
        return false;
    }
}

bool aclStubIsIntegral(aclDataType t, bool include_bool) {
    switch (t) {
    case ACL_INT8: case ACL_INT16: case ACL_INT32: case ACL_INT64: case ACL_UINT8: case ACL_UINT16: case ACL_UINT32:
    case ACL_UINT64:
        return true;
    case ACL_BOOL:
        return include_bool;
    default:
        return false;
    }
}

bool aclStubCanCast(aclDataType from, aclDataType to) {
    if (aclStubIsComplex(from) && !aclStubIsComplex(to)) return false;
    if (aclStubIsFloating(from) && aclStubIsIntegral(to, false)) return false;
    if (from != ACL_BOOL && to == ACL_BOOL) return false;
    return true;
}

/*
 * The promotion lattice of CANN's lookup table, over the types it defines (other pairs have no common type).
 * Row: the first operand, column: the second, in the order of KEYS. "--" is no common type.
 */
static const aclDataType KEYS[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  ACL_INT32,  ACL_UINT8,     ACL_INT16,
                                   ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64, ACL_DOUBLE,    ACL_BOOL,
                                   ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16, ACL_COMPLEX32};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])
static const char *const LATTICE[NKEYS] = {
    /*            f32 f16 i8  i32 u8  i16 u16 u32 i64 u64 f64 b   c64 c128 bf16 c32 */
    /* f32  */ "f32 f32 f32 f32 f32 f32 --  --  f32 --  f64 f32 c64 c128 f32  c64 ",
    /* f16  */ "f32 f16 f16 f16 f16 f16 --  --  f16 --  f64 f16 c64 c128 f32  c32 ",
    /* i8   */ "f32 f16 i8  i32 i16 i16 --  --  i64 --  f64 i8  c64 c128 bf16 c32 ",
    /* i32  */ "f32 f16 i32 i32 i32 i32 --  --  i64 --  f64 i32 c64 c128 bf16 c32 ",
    /* u8   */ "f32 f16 i16 i32 u8  i16 --  --  i64 --  f64 u8  c64 c128 bf16 c32 ",
    /* i16  */ "f32 f16 i16 i32 i16 i16 --  --  i64 --  f64 i16 c64 c128 bf16 c32 ",
    /* u16  */ "--  --  --  --  --  --  --  --  --  --  --  --  c64 c128 --   --  ",
    /* u32  */ "--  --  --  --  --  --  --  --  --  --  --  --  c64 c128 --   --  ",
    /* i64  */ "f32 f16 i64 i64 i64 i64 --  --  i64 --  f64 i64 c64 c128 bf16 c32 ",
    /* u64  */ "--  --  --  --  --  --  --  --  --  --  --  --  c128 c128 --  --  ",
    /* f64  */ "f64 f64 f64 f64 f64 f64 --  --  f64 --  f64 f64 c128 c128 f64 c128",
    /* b    */ "f32 f16 i8  i32 u8  i16 --  --  i64 --  f64 b   c64 c128 bf16 c32 ",
    /* c64  */ "c64 c64 c64 c64 c64 c64 --  --  c64 --  c128 c64 c64 c128 c64 c64 ",
    /* c128 */ "c128 c128 c128 c128 c128 c128 -- -- c128 -- c128 c128 c128 c128 c128 c128",
    /* bf16 */ "f32 f32 bf16 bf16 bf16 bf16 -- -- bf16 -- f64 bf16 c64 c128 bf16 c64",
    /* c32  */ "c64 c32 c32 c32 c32 c32 --  --  c32 --  c128 c32 c64 c128 c64 c32 ",
};

static const struct {
    const char *word;
    aclDataType dtype;
} WORDS[] = {{"f32", ACL_FLOAT},   {"f16", ACL_FLOAT16},     {"i8", ACL_INT8},        {"i32", ACL_INT32},
             {"u8", ACL_UINT8},    {"i16", ACL_INT16},       {"i64", ACL_INT64},      {"f64", ACL_DOUBLE},
             {"b", ACL_BOOL},      {"c64", ACL_COMPLEX64},   {"c128", ACL_COMPLEX128}, {"bf16", ACL_BF16},
             {"c32", ACL_COMPLEX32}, {"--", ACL_DT_UNDEFINED}};

static int key_index(aclDataType t) {
    for (size_t i = 0; i < NKEYS; i++)
        if (KEYS[i] == t) return (int)i;
    return -1;
}

/* The column-th word of a lattice row. */
static aclDataType lattice_at(const char *row, int column) {
    char word[8];
    for (int c = 0;; c++) {
        while (*row == ' ') row++;
        size_t len = strcspn(row, " ");
        if (c == column) {
            if (len >= sizeof word) return ACL_DT_UNDEFINED;
            memcpy(word, row, len);
            word[len] = '\0';
            for (size_t w = 0; w < sizeof WORDS / sizeof WORDS[0]; w++)
                if (strcmp(WORDS[w].word, word) == 0) return WORDS[w].dtype;
            return ACL_DT_UNDEFINED;
        }
        if (len == 0) return ACL_DT_UNDEFINED;
        row += len;
    }
}

aclDataType aclStubPromoteType(aclDataType a, aclDataType b) {
    if (a == b) return (int)a >= 0 && (int)a < 64 ? a : ACL_DT_UNDEFINED;
    int i = key_index(a), j = key_index(b);
    if (i < 0 || j < 0) return ACL_DT_UNDEFINED;
    static aclDataType table[NKEYS][NKEYS];
    static int ready; /* filled once; a racing second fill writes the same values */
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
        for (size_t r = 0; r < NKEYS; r++)
            for (size_t c = 0; c < NKEYS; c++) table[r][c] = lattice_at(LATTICE[r], (int)c);
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    return table[i][j];
}

/* ---- scalars ---- */

static double complex scalar_value(aclDataType dtype, const void *p) {
    switch (dtype) {
    case ACL_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case ACL_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case ACL_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return aclStubF16ToF32(v); }
    case ACL_BF16: { uint16_t v; memcpy(&v, p, 2); return aclStubBf16ToF32(v); }
    case ACL_INT8: return *(const int8_t *)p;
    case ACL_UINT8: return *(const uint8_t *)p;
    case ACL_BOOL: return *(const uint8_t *)p != 0;
    case ACL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case ACL_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case ACL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case ACL_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case ACL_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case ACL_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case ACL_COMPLEX64: { float v[2]; memcpy(v, p, 8); return CMPLX(v[0], v[1]); }
    case ACL_COMPLEX128: { double v[2]; memcpy(v, p, 16); return CMPLX(v[0], v[1]); }
    case ACL_COMPLEX32: {
        uint16_t v[2];
        memcpy(v, p, 4);
        return CMPLX(aclStubF16ToF32(v[0]), aclStubF16ToF32(v[1]));
    }
    default: return 0;
    }
}

double aclStubScalarToDouble(aclDataType dtype, const void *value) { return creal(scalar_value(dtype, value)); }
double aclStubScalarImag(aclDataType dtype, const void *value) { return cimag(scalar_value(dtype, value)); }

int64_t aclStubScalarToInt64(aclDataType dtype, const void *value) {
    switch (dtype) {
    case ACL_INT64: { int64_t v; memcpy(&v, value, 8); return v; }
    case ACL_UINT64: { uint64_t v; memcpy(&v, value, 8); return (int64_t)v; }
    default: break;
    }
    if (aclStubIsIntegral(dtype, true)) return (int64_t)aclStubScalarToDouble(dtype, value);
    int64_t out = 0;
    double d = aclStubScalarToDouble(dtype, value);
    aclStubCastStrided(&out, 8, ACL_INT64, &d, 8, ACL_DOUBLE, 1); /* truncation, saturation, NaN -> 0 */
    return out;
}

bool aclStubScalarToBool(aclDataType dtype, const void *value) {
    double complex v = scalar_value(dtype, value);
    return creal(v) != 0 || cimag(v) != 0;
}
