// A fixed pool of worker threads for the batched envs (batch.h, self_play.h): one job at a
// time, items shared out as threads become free.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fort {

// A fixed pool of threads running one job at a time: run(count, item) calls item(k) once for
// every k in [0, count), on the calling thread and the workers, each taking the next k as it
// becomes free (games differ in length, so a static split would leave threads idle). A
// worker joins a job only while it is open; the caller closes it when no item is left and
// waits only for the workers that joined, so a worker the OS has not scheduled yet (a busy
// machine) never holds a step up: the caller does its share.
class WorkerPool {
   public:
    explicit WorkerPool(int threads) {
        for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { loop(); });
    }
    ~WorkerPool() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        start_.notify_all();
        for (std::thread& w : workers_) w.join();
    }
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // `item` must not throw (the envs' run() catches everything inside it).
    void run(int count, const std::function<void(int)>& item) {
        // Waking the workers costs more than a handful of env steps saves.
        if (workers_.empty() || count < MIN_SHARED) {
            for (int k = 0; k < count; ++k) item(k);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            item_ = &item;
            count_ = count;
            next_.store(0);
            open_ = true;
            ++generation_;
        }
        start_.notify_all();
        drain(item, count);
        std::unique_lock<std::mutex> lock(mu_);
        open_ = false;  // no worker joins from now on
        done_.wait(lock, [this] { return active_ == 0; });
        item_ = nullptr;
    }

   private:
    static constexpr int MIN_SHARED = 4;

    void drain(const std::function<void(int)>& item, int count) {
        for (int k = next_.fetch_add(1); k < count; k = next_.fetch_add(1)) item(k);
    }

    void loop() {
        uint64_t seen = 0;
        for (;;) {
            const std::function<void(int)>* item = nullptr;
            int count = 0;
            {
                std::unique_lock<std::mutex> lock(mu_);
                start_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
                if (!open_) continue;  // woke after the job was done
                ++active_;
                item = item_;
                count = count_;
            }
            drain(*item, count);
            {
                std::lock_guard<std::mutex> lock(mu_);
                if (--active_ == 0) done_.notify_one();
            }
        }
    }

    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable start_, done_;
    const std::function<void(int)>* item_ = nullptr;
    int count_ = 0;
    std::atomic<int> next_{0};
    int active_ = 0;  // workers inside the open job
    bool open_ = false;
    uint64_t generation_ = 0;
    bool stop_ = false;
};

}  // namespace fort
