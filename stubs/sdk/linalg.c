/*
 * LAPACK of the stub's OpenBLAS for ops-math's linear algebra operators (aclstub/op_linalg.h).
 */
#include "aclstub/op_linalg.h"

#include <stdlib.h>
#include <string.h>

#include "sdk_internal.h"

#define NO_MEMORY (-1000)
#define NO_BLAS (-1001) /* not reached: the kernels check aclStubLinalgReady first */

/* LAPACK of the stub's OpenBLAS (sdk_blas: 32-bit integers; the hidden lengths of character arguments last). */
static const aclStubBlasApi *lapack(void) { return sdk_blas(NULL); }

aclnnStatus aclStubLinalgReady(const aclStubOpCall *call) {
    const char *why = NULL;
    if (sdk_blas(&why) == NULL) return aclStubKernelFail(call, ACLNN_ERR_INNER, "%s", why);
    return ACLNN_SUCCESS;
}

/* ---- matrices of views ------------------------------------------------------------------------------------------ */

void *aclStubLinalgMatrix(const aclStubTensorDesc *t, int tail, int nb, const int64_t *batch, int64_t item,
                          int64_t *rs, int64_t *cs) {
    int nd = (int)t->ndim;
    int64_t off = t->offset;
    for (int d = nb - 1; d >= 0; d--) {
        int64_t idx = item % batch[d];
        item /= batch[d];
        int td = d - (nb - (nd - tail)); /* the view's dimension aligned with batch dimension d */
        if (td >= 0 && t->dims[td] != 1) off += idx * t->strides[td];
    }
    *rs = tail >= 2 ? t->strides[nd - 2] : 0;
    *cs = tail >= 1 ? t->strides[nd - 1] : 0;
    return (char *)t->data + off * (int64_t)aclDataTypeSize(t->dtype);
}

void aclStubLinalgLoad(double *dst, int64_t ld, bool cplx, const void *p, aclDataType dt, int64_t rs, int64_t cs,
                       int64_t m, int64_t n) {
    size_t es = aclDataTypeSize(dt);
    int w = cplx ? 2 : 1;
    for (int64_t j = 0; j < n; j++)
        aclStubCastStrided(dst + j * ld * w, (int64_t)sizeof(double) * w, cplx ? ACL_COMPLEX128 : ACL_DOUBLE,
                           (const char *)p + j * cs * (int64_t)es, rs * (int64_t)es, dt, m);
}

void aclStubLinalgStore(void *p, aclDataType dt, int64_t rs, int64_t cs, const double *src, int64_t ld, bool cplx,
                        aclDataType via, int64_t m, int64_t n) {
    size_t es = aclDataTypeSize(dt);
    int w = cplx ? 2 : 1;
    aclDataType wt = cplx ? ACL_COMPLEX128 : ACL_DOUBLE;
    if (via == ACL_DT_UNDEFINED || via == wt || via == dt) {
        for (int64_t j = 0; j < n; j++)
            aclStubCastStrided((char *)p + j * cs * (int64_t)es, rs * (int64_t)es, dt, src + j * ld * w,
                               (int64_t)sizeof(double) * w, wt, m);
        return;
    }
    enum { CHUNK = 64 };
    double tmp[CHUNK * 2]; /* room for CHUNK values of any dtype up to 16 bytes */
    size_t vs = aclDataTypeSize(via);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i0 = 0; i0 < m; i0 += CHUNK) {
            int64_t c = m - i0 < CHUNK ? m - i0 : CHUNK;
            aclStubCastStrided(tmp, (int64_t)vs, via, src + (j * ld + i0) * w, (int64_t)sizeof(double) * w, wt, c);
            aclStubCastStrided((char *)p + (j * cs + i0 * rs) * (int64_t)es, rs * (int64_t)es, dt, tmp, (int64_t)vs,
                               via, c);
        }
}

/* ---- LAPACK -------------------------------------------------------------------------------------------------- */

int aclStubLapackPotrf(bool cplx, bool upper, int64_t n, double *a, int64_t lda) {
    const aclStubBlasApi *L = lapack();
    if (L == NULL) return NO_BLAS;
    int in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0;
    char uplo = upper ? 'U' : 'L';
    if (cplx)
        L->zpotrf_(&uplo, &in, a, &ilda, &info, 1);
    else
        L->dpotrf_(&uplo, &in, a, &ilda, &info, 1);
    return info;
}

int aclStubLapackGetrf(bool cplx, int64_t n, double *a, int64_t lda, int *ipiv) {
    const aclStubBlasApi *L = lapack();
    if (L == NULL) return NO_BLAS;
    int in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0;
    if (cplx)
        L->zgetrf_(&in, &in, a, &ilda, ipiv, &info);
    else
        L->dgetrf_(&in, &in, a, &ilda, ipiv, &info);
    return info;
}

int aclStubLapackInverse(bool cplx, int64_t n, double *a, int64_t lda) {
    int *ipiv = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (ipiv == NULL) return NO_MEMORY;
    int info = aclStubLapackGetrf(cplx, n, a, lda, ipiv);
    const aclStubBlasApi *L = lapack();
    if (info == 0 && L != NULL) {
        int in = (int)n, ilda = (int)(lda > 1 ? lda : 1), lwork = -1;
        double query[2] = {0, 0};
        if (cplx)
            L->zgetri_(&in, a, &ilda, ipiv, query, &lwork, &info);
        else
            L->dgetri_(&in, a, &ilda, ipiv, query, &lwork, &info);
        lwork = (int)query[0] > in ? (int)query[0] : (in > 1 ? in : 1);
        double *work = malloc(sizeof(double) * (size_t)lwork * (cplx ? 2 : 1));
        if (work == NULL) {
            free(ipiv);
            return NO_MEMORY;
        }
        if (cplx)
            L->zgetri_(&in, a, &ilda, ipiv, work, &lwork, &info);
        else
            L->dgetri_(&in, a, &ilda, ipiv, work, &lwork, &info);
        free(work);
    }
    free(ipiv);
    return info;
}

int aclStubLapackQr(bool cplx, int64_t m, int64_t n, double *a, int64_t lda, double *q, int64_t ldq, int64_t qcols) {
    const aclStubBlasApi *L = lapack();
    if (L == NULL) return NO_BLAS;
    int w = cplx ? 2 : 1;
    int im = (int)m, in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0, k = (int)(m < n ? m : n);
    int iq = (int)qcols, ildq = (int)(ldq > 1 ? ldq : 1);
    /* workspace: the larger of the two routines' queries */
    double query[2] = {0, 0};
    int lwork = -1;
    if (cplx)
        L->zgeqrf_(&im, &in, a, &ilda, NULL, query, &lwork, &info);
    else
        L->dgeqrf_(&im, &in, a, &ilda, NULL, query, &lwork, &info);
    int64_t need = (int64_t)query[0];
    if (q != NULL && iq > 0) {
        double q2[2] = {0, 0};
        if (cplx)
            L->zungqr_(&im, &iq, &k, q, &ildq, NULL, q2, &lwork, &info);
        else
            L->dorgqr_(&im, &iq, &k, q, &ildq, NULL, q2, &lwork, &info);
        if ((int64_t)q2[0] > need) need = (int64_t)q2[0];
    }
    if (need < 1) need = 1;
    double *tau = malloc(sizeof(double) * (size_t)w * (size_t)(k > 0 ? k : 1));
    double *work = malloc(sizeof(double) * (size_t)w * (size_t)need);
    if (tau == NULL || work == NULL) {
        free(tau);
        free(work);
        return NO_MEMORY;
    }
    lwork = (int)need;
    info = 0;
    if (k > 0) {
        if (cplx)
            L->zgeqrf_(&im, &in, a, &ilda, tau, work, &lwork, &info);
        else
            L->dgeqrf_(&im, &in, a, &ilda, tau, work, &lwork, &info);
    }
    if (info == 0 && q != NULL && iq > 0) {
        /* the reflectors below the diagonal into q, then Q formed in place */
        for (int64_t j = 0; j < qcols; j++) {
            double *qj = q + j * ldq * w;
            if (j < n)
                memcpy(qj, a + j * lda * w, sizeof(double) * (size_t)w * (size_t)m);
            else
                memset(qj, 0, sizeof(double) * (size_t)w * (size_t)m);
        }
        if (cplx)
            L->zungqr_(&im, &iq, &k, q, &ildq, tau, work, &lwork, &info);
        else
            L->dorgqr_(&im, &iq, &k, q, &ildq, tau, work, &lwork, &info);
    }
    /* R: the upper triangle, zeros below */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j + 1; i < m; i++) memset(a + (j * lda + i) * w, 0, sizeof(double) * (size_t)w);
    free(tau);
    free(work);
    return info;
}

int aclStubLapackSvd(bool cplx, bool full, int64_t m, int64_t n, double *a, int64_t lda, double *s, double *u,
                     int64_t ldu, double *vt, int64_t ldvt) {
    const aclStubBlasApi *L = lapack();
    if (L == NULL) return NO_BLAS;
    int w = cplx ? 2 : 1;
    int im = (int)m, in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0;
    int mn = (int)(m < n ? m : n), mx = (int)(m > n ? m : n);
    char jobz = u == NULL ? 'N' : full ? 'A' : 'S';
    int ildu = (int)(ldu > 1 ? ldu : 1), ildvt = (int)(ldvt > 1 ? ldvt : 1);
    double dummy[2] = {0, 0};
    if (u == NULL) u = dummy, vt = dummy;
    int *iwork = malloc(sizeof(int) * (size_t)(8 * (mn > 0 ? mn : 1)));
    double *rwork = NULL;
    if (cplx) {
        /* LAPACK's bound for zgesdd */
        int64_t lr = jobz == 'N' ? 7 * (int64_t)mn
                                 : (int64_t)mn * (5 * (int64_t)mn + 7) > 2 * (int64_t)mx * mn + 2 * (int64_t)mn * mn + mn
                                       ? (int64_t)mn * (5 * (int64_t)mn + 7)
                                       : 2 * (int64_t)mx * mn + 2 * (int64_t)mn * mn + mn;
        rwork = malloc(sizeof(double) * (size_t)(lr > 1 ? lr : 1));
    }
    double query[2] = {0, 0};
    int lwork = -1;
    if (iwork != NULL && (!cplx || rwork != NULL)) {
        if (cplx)
            L->zgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, query, &lwork, rwork, iwork, &info, 1);
        else
            L->dgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, query, &lwork, iwork, &info, 1);
    }
    int64_t need = (int64_t)query[0];
    if (need < 1) need = 1;
    double *work = malloc(sizeof(double) * (size_t)w * (size_t)need);
    if (iwork == NULL || work == NULL || (cplx && rwork == NULL)) {
        free(iwork);
        free(rwork);
        free(work);
        return NO_MEMORY;
    }
    lwork = (int)need;
    info = 0;
    if (cplx)
        L->zgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, work, &lwork, rwork, iwork, &info, 1);
    else
        L->dgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, work, &lwork, iwork, &info, 1);
    free(iwork);
    free(rwork);
    free(work);
    return info;
}

void aclStubLapackTrsm(bool cplx, bool upper, bool trans, int64_t n, int64_t nrhs, const double *a, int64_t lda,
                       double *b, int64_t ldb) {
    const aclStubBlasApi *L = lapack();
    if (L == NULL || n <= 0 || nrhs <= 0) return;
    int in = (int)n, ir = (int)nrhs, ilda = (int)(lda > 1 ? lda : 1), ildb = (int)(ldb > 1 ? ldb : 1);
    char side = 'L', uplo = upper ? 'U' : 'L', tr = trans ? (cplx ? 'C' : 'T') : 'N', diag = 'N';
    double one[2] = {1.0, 0.0};
    if (cplx)
        L->ztrsm_(&side, &uplo, &tr, &diag, &in, &ir, one, a, &ilda, b, &ildb, 1, 1, 1, 1);
    else
        L->dtrsm_(&side, &uplo, &tr, &diag, &in, &ir, one, a, &ilda, b, &ildb, 1, 1, 1, 1);
}
