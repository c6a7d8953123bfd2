/*
 * LAPACK of the stub's OpenBLAS for ops-math's linear algebra operators (aclstub/op_linalg.h).
 */
#include "aclstub/op_linalg.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Fortran LAPACK/BLAS of libscipy_openblas (32-bit integers; the hidden lengths of character arguments last). */
extern void scipy_openblas_set_num_threads(int n);
extern void scipy_dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
extern void scipy_zpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
extern void scipy_dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void scipy_zgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void scipy_dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork,
                          int *info);
extern void scipy_zgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork,
                          int *info);
extern void scipy_dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
                          const int *lwork, int *info);
extern void scipy_zgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
                          const int *lwork, int *info);
extern void scipy_dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
                          double *work, const int *lwork, int *info);
extern void scipy_zungqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
                          double *work, const int *lwork, int *info);
extern void scipy_dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
                          const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork,
                          int *info, size_t);
extern void scipy_zgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
                          const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, double *rwork,
                          int *iwork, int *info, size_t);
extern void scipy_dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
                         const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
                         size_t, size_t, size_t, size_t);
extern void scipy_ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
                         const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
                         size_t, size_t, size_t, size_t);

#define NO_MEMORY (-1000)

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void blas_init(void) { scipy_openblas_set_num_threads(1); } /* the stub's threads run the batch */
static void init(void) { pthread_once(&blas_once, blas_init); }

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
    init();
    int in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0;
    char uplo = upper ? 'U' : 'L';
    if (cplx)
        scipy_zpotrf_(&uplo, &in, a, &ilda, &info, 1);
    else
        scipy_dpotrf_(&uplo, &in, a, &ilda, &info, 1);
    return info;
}

int aclStubLapackGetrf(bool cplx, int64_t n, double *a, int64_t lda, int *ipiv) {
    init();
    int in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0;
    if (cplx)
        scipy_zgetrf_(&in, &in, a, &ilda, ipiv, &info);
    else
        scipy_dgetrf_(&in, &in, a, &ilda, ipiv, &info);
    return info;
}

int aclStubLapackInverse(bool cplx, int64_t n, double *a, int64_t lda) {
    int *ipiv = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (ipiv == NULL) return NO_MEMORY;
    int info = aclStubLapackGetrf(cplx, n, a, lda, ipiv);
    if (info == 0) {
        int in = (int)n, ilda = (int)(lda > 1 ? lda : 1), lwork = -1;
        double query[2] = {0, 0};
        if (cplx)
            scipy_zgetri_(&in, a, &ilda, ipiv, query, &lwork, &info);
        else
            scipy_dgetri_(&in, a, &ilda, ipiv, query, &lwork, &info);
        lwork = (int)query[0] > in ? (int)query[0] : (in > 1 ? in : 1);
        double *work = malloc(sizeof(double) * (size_t)lwork * (cplx ? 2 : 1));
        if (work == NULL) {
            free(ipiv);
            return NO_MEMORY;
        }
        if (cplx)
            scipy_zgetri_(&in, a, &ilda, ipiv, work, &lwork, &info);
        else
            scipy_dgetri_(&in, a, &ilda, ipiv, work, &lwork, &info);
        free(work);
    }
    free(ipiv);
    return info;
}

int aclStubLapackQr(bool cplx, int64_t m, int64_t n, double *a, int64_t lda, double *q, int64_t ldq, int64_t qcols) {
    init();
    int w = cplx ? 2 : 1;
    int im = (int)m, in = (int)n, ilda = (int)(lda > 1 ? lda : 1), info = 0, k = (int)(m < n ? m : n);
    int iq = (int)qcols, ildq = (int)(ldq > 1 ? ldq : 1);
    /* workspace: the larger of the two routines' queries */
    double query[2] = {0, 0};
    int lwork = -1;
    if (cplx)
        scipy_zgeqrf_(&im, &in, a, &ilda, NULL, query, &lwork, &info);
    else
        scipy_dgeqrf_(&im, &in, a, &ilda, NULL, query, &lwork, &info);
    int64_t need = (int64_t)query[0];
    if (q != NULL && iq > 0) {
        double q2[2] = {0, 0};
        if (cplx)
            scipy_zungqr_(&im, &iq, &k, q, &ildq, NULL, q2, &lwork, &info);
        else
            scipy_dorgqr_(&im, &iq, &k, q, &ildq, NULL, q2, &lwork, &info);
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
            scipy_zgeqrf_(&im, &in, a, &ilda, tau, work, &lwork, &info);
        else
            scipy_dgeqrf_(&im, &in, a, &ilda, tau, work, &lwork, &info);
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
            scipy_zungqr_(&im, &iq, &k, q, &ildq, tau, work, &lwork, &info);
        else
            scipy_dorgqr_(&im, &iq, &k, q, &ildq, tau, work, &lwork, &info);
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
    init();
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
            scipy_zgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, query, &lwork, rwork, iwork, &info, 1);
        else
            scipy_dgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, query, &lwork, iwork, &info, 1);
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
        scipy_zgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, work, &lwork, rwork, iwork, &info, 1);
    else
        scipy_dgesdd_(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, work, &lwork, iwork, &info, 1);
    free(iwork);
    free(rwork);
    free(work);
    return info;
}

void aclStubLapackTrsm(bool cplx, bool upper, bool trans, int64_t n, int64_t nrhs, const double *a, int64_t lda,
                       double *b, int64_t ldb) {
    init();
    if (n <= 0 || nrhs <= 0) return;
    int in = (int)n, ir = (int)nrhs, ilda = (int)(lda > 1 ? lda : 1), ildb = (int)(ldb > 1 ? ldb : 1);
    char side = 'L', uplo = upper ? 'U' : 'L', tr = trans ? (cplx ? 'C' : 'T') : 'N', diag = 'N';
    double one[2] = {1.0, 0.0};
    if (cplx)
        scipy_ztrsm_(&side, &uplo, &tr, &diag, &in, &ir, one, a, &ilda, b, &ildb, 1, 1, 1, 1);
    else
        scipy_dtrsm_(&side, &uplo, &tr, &diag, &in, &ir, one, a, &ilda, b, &ildb, 1, 1, 1, 1);
}
