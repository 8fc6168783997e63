// negentropy-driver: reconciles two item sets with the negentropy reference implementation
// (hoytech/negentropy, C++, vendored under reference/ at commit 6edb041), both sides in this
// process, and prints what the exchange cost as one JSON object on standard output.
//
// Invariants: the two sets are read from files `synckernel bench-e2e` writes (each item 40 bytes:
// an 8-byte little-endian timestamp, then a 32-byte id); side A is the initiator, side B answers;
// every message is counted in the direction it travels, as the bytes the library returns; a round
// trip is one initiator message and the answer to it; CPU is each side's thread CPU time spent in
// the library's calls (storage build and sort included, reported apart); the run fails (exit 1)
// unless the ids the initiator learned are exactly the symmetric difference of the two sets.
//
// usage: negentropy-driver A.items B.items [--frame-limit BYTES]   (0, the default: no limit)

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unordered_set>
#include <vector>

#include "negentropy.h"
#include "negentropy/storage/Vector.h"

namespace {

// The calling thread's CPU time in seconds.
double threadCPU() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

// Reads a file of 40-byte items into `storage` (sealed) and the ids into `ids`.
bool load(const char *path, negentropy::storage::Vector &storage, std::unordered_set<std::string> &ids) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() % 40 != 0) return false;
    for (size_t at = 0; at < bytes.size(); at += 40) {
        uint64_t timestamp = 0;
        for (int i = 7; i >= 0; i--) timestamp = (timestamp << 8) | static_cast<unsigned char>(bytes[at + i]);
        std::string id = bytes.substr(at + 8, 32);
        storage.insert(timestamp, id);
        ids.insert(id);
    }
    storage.seal();
    return true;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--frame-limit")) {
        std::fprintf(stderr, "usage: negentropy-driver A.items B.items [--frame-limit BYTES]\n");
        return 64;
    }
    uint64_t frameLimit = argc == 5 ? std::stoull(argv[4]) : 0;
    negentropy::storage::Vector storageA, storageB;
    std::unordered_set<std::string> idsA, idsB;
    double start = threadCPU();
    if (!load(argv[1], storageA, idsA)) { std::fprintf(stderr, "negentropy-driver: cannot read %s\n", argv[1]); return 1; }
    double buildA = threadCPU() - start;
    start = threadCPU();
    if (!load(argv[2], storageB, idsB)) { std::fprintf(stderr, "negentropy-driver: cannot read %s\n", argv[2]); return 1; }
    double buildB = threadCPU() - start;

    try {
        negentropy::Negentropy a(storageA, frameLimit);
        negentropy::Negentropy b(storageB, frameLimit);
        std::vector<std::string> have, need;
        uint64_t bytesAB = 0, bytesBA = 0, messagesAB = 0, messagesBA = 0, roundTrips = 0;
        double cpuA = 0, cpuB = 0;
        start = threadCPU();
        std::string message = a.initiate();
        cpuA += threadCPU() - start;
        while (true) {
            bytesAB += message.size();
            messagesAB += 1;
            roundTrips += 1;
            start = threadCPU();
            std::string answer = b.reconcile(message);
            cpuB += threadCPU() - start;
            bytesBA += answer.size();
            messagesBA += 1;
            start = threadCPU();
            std::optional<std::string> next = a.reconcile(answer, have, need);
            cpuA += threadCPU() - start;
            if (!next) break;
            message = std::move(*next);
        }
        std::unordered_set<std::string> haveSet(have.begin(), have.end()), needSet(need.begin(), need.end());
        size_t onlyA = 0, onlyB = 0;
        for (const auto &id : idsA) if (!idsB.count(id)) onlyA++;
        for (const auto &id : idsB) if (!idsA.count(id)) onlyB++;
        bool exact = haveSet.size() == onlyA && needSet.size() == onlyB;
        for (const auto &id : haveSet) exact = exact && idsA.count(id) && !idsB.count(id);
        for (const auto &id : needSet) exact = exact && idsB.count(id) && !idsA.count(id);
        std::printf("{\"items_a\":%zu,\"items_b\":%zu,\"frame_limit\":%llu,\"bytes_a_to_b\":%llu,\"bytes_b_to_a\":%llu,"
                    "\"messages_a_to_b\":%llu,\"messages_b_to_a\":%llu,\"round_trips\":%llu,\"have\":%zu,\"need\":%zu,"
                    "\"exact\":%s,\"cpu_ms_a\":%.3f,\"cpu_ms_b\":%.3f,\"build_ms_a\":%.3f,\"build_ms_b\":%.3f}\n",
                    idsA.size(), idsB.size(), static_cast<unsigned long long>(frameLimit),
                    static_cast<unsigned long long>(bytesAB), static_cast<unsigned long long>(bytesBA),
                    static_cast<unsigned long long>(messagesAB), static_cast<unsigned long long>(messagesBA),
                    static_cast<unsigned long long>(roundTrips), haveSet.size(), needSet.size(), exact ? "true" : "false",
                    cpuA * 1e3, cpuB * 1e3, buildA * 1e3, buildB * 1e3);
        return exact ? 0 : 1;
    } catch (const std::exception &error) {
        std::fprintf(stderr, "negentropy-driver: %s\n", error.what());
        return 1;
    }
}
