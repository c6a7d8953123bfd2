// The structure of the official HCCL samples (point to point and collectives), one mode per sample: the main
// thread initialises the runtime, sets device 0 and writes the root info; one thread per device sets its device,
// fills its device buffers from host data, creates its rank from the shared root info, queues the operation on a
// stream of its own, synchronises and reads the result back. Results are printed in rank order after every
// thread has finished, as "rankId: R, output: [ v v ... ]" lines; the samples' own sleeps are left out.
//
// Usage: hccl_samples MODE [DEVICES]  (MODE: send_recv, batch_send_recv_ring, allreduce, broadcast, allgather,
// reduce_scatter, reduce, alltoall, alltoallv, alltoallvc, scatter, initall)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hccl/hccl.h"
#include "hccl/hccl_types.h"

#define ACL_OK(call)                                                                               \
    do {                                                                                           \
        int status_ = (call);                                                                      \
        if (status_ != 0) {                                                                        \
            std::printf("error %d at line %d: %s\n", status_, __LINE__, aclGetRecentErrMsg());     \
            return status_;                                                                        \
        }                                                                                          \
    } while (0)

struct Rank {
    std::string mode;
    HcclRootInfo *root;
    HcclComm comm;  // set by the main thread in initall mode
    uint32_t device;
    uint32_t n;
    std::string output;  // what the rank prints; empty: it prints nothing
    int status;
};

static std::string format(const std::vector<float> &v) {
    std::ostringstream s;
    s << "[";
    for (float x : v) s << " " << x;
    s << " ]";
    return s.str();
}

static int run(Rank &k) {
    const std::string &m = k.mode;
    uint32_t r = k.device, n = k.n;
    ACL_OK(aclrtSetDevice(static_cast<int32_t>(r)));
    // the length of the send and receive buffers, and the host data a rank starts with
    uint64_t send_count = n, recv_count = n;
    if (m == "allgather") send_count = 1;
    if (m == "reduce_scatter" || m == "scatter") recv_count = 1;
    std::vector<float> host(send_count);
    for (uint64_t i = 0; i < send_count; i++) {
        bool iota = m == "allreduce" || m == "initall" || m == "reduce_scatter" || m == "reduce" ||
                    ((m == "broadcast" || m == "scatter") && r == 0);
        host[i] = iota ? static_cast<float>(i) : (m == "broadcast" || m == "scatter") ? 0.0f : static_cast<float>(r);
    }
    void *send = nullptr, *recv = nullptr;
    ACL_OK(aclrtMalloc(&send, send_count * sizeof(float), ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_OK(aclrtMalloc(&recv, recv_count * sizeof(float), ACL_MEM_MALLOC_HUGE_ONLY));
    ACL_OK(aclrtMemset(recv, recv_count * sizeof(float), 0, recv_count * sizeof(float)));
    ACL_OK(aclrtMemcpy(send, send_count * sizeof(float), host.data(), send_count * sizeof(float),
                       ACL_MEMCPY_HOST_TO_DEVICE));
    HcclComm comm = k.comm;
    if (m != "initall") ACL_OK(HcclCommInitRootInfo(n, k.root, r, &comm));
    aclrtStream stream;
    ACL_OK(aclrtCreateStream(&stream));
    std::vector<uint64_t> counts(n, 1), displs(n), matrix(static_cast<size_t>(n) * n, 1);
    for (uint32_t i = 0; i < n; i++) displs[i] = i;
    bool prints = true;
    void *result = recv;
    if (m == "send_recv") {  // even ranks send to the next odd rank
        if (r % 2 == 0) {
            prints = false;
            if (r + 1 < n) ACL_OK(HcclSend(send, n, HCCL_DATA_TYPE_FP32, r + 1, comm, stream));
        } else {
            ACL_OK(HcclRecv(recv, n, HCCL_DATA_TYPE_FP32, r - 1, comm, stream));
        }
    } else if (m == "batch_send_recv_ring") {
        HcclSendRecvItem items[2] = {{HCCL_SEND, send, n, HCCL_DATA_TYPE_FP32, (r + 1) % n},
                                     {HCCL_RECV, recv, n, HCCL_DATA_TYPE_FP32, (r + n - 1) % n}};
        ACL_OK(HcclBatchSendRecv(items, 2, comm, stream));
    } else if (m == "allreduce" || m == "initall") {
        ACL_OK(HcclAllReduce(send, recv, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    } else if (m == "broadcast") {
        ACL_OK(HcclBroadcast(send, n, HCCL_DATA_TYPE_FP32, 0, comm, stream));
        result = send;
    } else if (m == "allgather") {
        ACL_OK(HcclAllGather(send, recv, 1, HCCL_DATA_TYPE_FP32, comm, stream));
    } else if (m == "reduce_scatter") {
        ACL_OK(HcclReduceScatter(send, recv, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    } else if (m == "reduce") {
        ACL_OK(HcclReduce(send, recv, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 0, comm, stream));
    } else if (m == "alltoall") {
        ACL_OK(HcclAlltoAll(send, 1, HCCL_DATA_TYPE_FP32, recv, 1, HCCL_DATA_TYPE_FP32, comm, stream));
    } else if (m == "alltoallv") {
        ACL_OK(HcclAlltoAllV(send, counts.data(), displs.data(), HCCL_DATA_TYPE_FP32, recv, counts.data(),
                             displs.data(), HCCL_DATA_TYPE_FP32, comm, stream));
    } else if (m == "alltoallvc") {
        ACL_OK(HcclAlltoAllVC(send, matrix.data(), HCCL_DATA_TYPE_FP32, recv, HCCL_DATA_TYPE_FP32, comm, stream));
    } else if (m == "scatter") {
        ACL_OK(HcclScatter(send, recv, 1, HCCL_DATA_TYPE_FP32, 0, comm, stream));
    } else {
        std::printf("unknown mode %s\n", m.c_str());
        return 1;
    }
    ACL_OK(aclrtSynchronizeStream(stream));
    uint64_t shown = result == send ? send_count : recv_count;
    std::vector<float> out(shown);
    ACL_OK(aclrtMemcpy(out.data(), shown * sizeof(float), result, shown * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    if (prints) k.output = "rankId: " + std::to_string(r) + ", output: " + format(out);
    ACL_OK(HcclCommDestroy(comm));
    ACL_OK(aclrtFree(send));
    ACL_OK(aclrtFree(recv));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(static_cast<int32_t>(r)));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    ACL_OK(aclInit(nullptr));
    uint32_t n = 0;
    ACL_OK(aclrtGetDeviceCount(&n));
    if (argc > 2) n = static_cast<uint32_t>(std::atoi(argv[2]));
    std::printf("Found %u NPU device(s) available\n", n);
    ACL_OK(aclrtSetDevice(0));
    void *buf = nullptr;
    ACL_OK(aclrtMallocHost(&buf, sizeof(HcclRootInfo)));
    HcclRootInfo *root = static_cast<HcclRootInfo *>(buf);
    ACL_OK(HcclGetRootInfo(root));
    std::vector<Rank> ranks(n);
    std::vector<HcclComm> comms(n);
    std::vector<int32_t> devices(n);
    for (uint32_t i = 0; i < n; i++) devices[i] = static_cast<int32_t>(i);
    if (std::string(argv[1]) == "initall") ACL_OK(HcclCommInitAll(n, devices.data(), comms.data()));
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < n; i++) {
        ranks[i] = Rank{argv[1], root, comms[i], i, n, "", 0};
        threads.emplace_back([&ranks, i] { ranks[i].status = run(ranks[i]); });
    }
    int failed = 0;
    for (uint32_t i = 0; i < n; i++) {
        threads[i].join();
        failed |= ranks[i].status;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!ranks[i].output.empty()) std::printf("%s\n", ranks[i].output.c_str());
    ACL_OK(aclrtFreeHost(buf));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return failed;
}
