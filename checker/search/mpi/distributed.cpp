// The distributed back end (--distributed, under mpirun; docs/checker.md,
// "Distributed search"): breadth-first, level by level, over the ranks of
// an MPI job, with one or more threads each. Each rank owns the states whose
// fingerprint falls in its part (owner_of): it alone keeps them in its
// visited set and expands them. A level is expanded in rounds: each rank
// expands a batch of its states in id order (its threads each a contiguous
// part of the batch, with workers of their own), sends each successor (its
// fingerprint, its key in the one-thread order, its bytes) to the
// successor's owner, and takes in what it receives; an owner keeps, of
// each new state, the entry with the smallest key (its earliest parent in
// the one-thread order), as the parallel search does. Between levels the
// new states are numbered as one thread numbers them: each key goes to the
// rank that holds its parent's part of the id range, which sorts the keys
// it holds; a prefix sum over the ranks gives each its first id. So the
// ids, parent links, first violation and its counts are those of one
// thread on every rank, which all return the same Searched.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/frontier.hpp"
#include "checker/program.hpp"
#include "checker/search/mpi/distributed.hpp"
#include "checker/search/interrupt.hpp"
#include "checker/search/limits.hpp"
#include "checker/search/search.hpp"
#include "checker/search/team.hpp"
#include "checker/trips.hpp"

namespace pc::check {

namespace {
Searched search(const SearchRun& run, unsigned threads);
}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) throw std::runtime_error("MPI_Init_thread failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  distributed_breadth_first = search;
}

MpiSession::~MpiSession() {
  distributed_breadth_first = nullptr;
  MPI_Finalize();
}

namespace {

// Bytes written and read in order: the messages between ranks.
template <class T>
void put(std::string& b, T v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof v);
}
struct Reader {
  const char* p;
  const char* end;
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  std::string_view bytes(std::size_t n) {
    const std::string_view v(p, n);
    p += n;
    return v;
  }
  [[nodiscard]] bool more() const { return p < end; }
};

// Every rank sends out[r] to rank r; what each receives, by source.
struct Received {
  std::string data;
  std::vector<int> count, at;
  [[nodiscard]] Reader from(int r) const {
    const char* p = data.data() + at[static_cast<std::size_t>(r)];
    return Reader{p, p + count[static_cast<std::size_t>(r)]};
  }
};
void exchange(std::vector<std::string>& out, std::string& send, Received& in) {
  const std::size_t n = out.size();
  std::vector<int> sc(n), sd(n);
  send.clear();
  for (std::size_t r = 0; r < n; ++r) {
    if (out[r].size() > static_cast<std::size_t>(INT_MAX) || send.size() + out[r].size() > static_cast<std::size_t>(INT_MAX))
      throw InternalError("a round of the distributed search sends more than 2 GiB");
    sd[r] = static_cast<int>(send.size());
    sc[r] = static_cast<int>(out[r].size());
    send += out[r];
    out[r].clear();
  }
  in.count.assign(n, 0);
  in.at.assign(n, 0);
  MPI_Alltoall(sc.data(), 1, MPI_INT, in.count.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    in.at[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(in.count[r]);
    if (total > static_cast<std::size_t>(INT_MAX)) throw InternalError("a round of the distributed search receives more than 2 GiB");
  }
  in.data.resize(total);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, in.data.data(), in.count.data(), in.at.data(), MPI_BYTE,
                MPI_COMM_WORLD);
}

std::uint64_t sum(std::uint64_t v) {
  std::uint64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

// A level's new states by fingerprint: the index of each in the level's list.
class LevelIndex {
 public:
  void clear() {
    if (slots_.size() != 1024 || size_ != 0) slots_.assign(1024, Slot{});
    size_ = 0;
  }
  // The index kept for fp, or `fresh`, now kept for it, when fp is new.
  std::uint32_t find_or_put(std::uint64_t fp, std::uint32_t fresh) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    fp += fp == 0;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slot(fp, mask);; i = (i + 1) & mask) {
      if (slots_[i].fp == 0) {
        slots_[i] = Slot{fp, fresh};
        ++size_;
        return fresh;
      }
      if (slots_[i].fp == fp) return slots_[i].index;
    }
  }

 private:
  struct Slot {
    std::uint64_t fp = 0;
    std::uint32_t index = 0;
  };
  static std::size_t slot(std::uint64_t fp, std::size_t mask) { return (fp * 0x9E3779B97F4A7C15ull >> 20) & mask; }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    std::swap(old, slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.fp == 0) continue;
      std::size_t i = slot(s.fp, mask);
      while (slots_[i].fp != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  std::size_t size_ = 0;
};

// How a search stopped, in the priority Limits::reached names them.
enum Stop : std::uint64_t { none = 0, timeout = 1, max_states = 2, max_memory = 3, interrupted = 4 };
Stop stop_of(const char* why) {
  if (!why) return none;
  const std::string w = why;
  return w == "interrupted" ? interrupted : w == "max-memory" ? max_memory : w == "max-states" ? max_states : timeout;
}
const char* stop_name(std::uint64_t s) {
  switch (s) {
    case timeout: return "timeout";
    case max_states: return "max-states";
    case max_memory: return "max-memory";
    case interrupted: return "interrupted";
    default: return "";
  }
}

// The successors a round sends: at most this many states expanded, or this
// many bytes queued, whichever comes first. A round's buffers (queued, sent
// and received) are a rank's memory beside its visited set and levels:
// 2 MiB keeps them small beside the states (a 2-CTA kernel's state is
// about 1 KiB, its successors ten), at a round every 20 to 50 ms.
constexpr std::size_t batch_states = 256;
constexpr std::size_t batch_bytes = std::size_t{2} << 20;

// A thread of a rank: its worker, what it queued for each rank in this
// round, and each state it expanded with the transitions that took.
struct Lane {
  Worker w;
  FrameReader reader;
  std::vector<std::string> out;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> expanded;  // id, transitions
  std::size_t begin = 0, end = 0;  // its part of the round's batch
  std::size_t bytes = 0;
  Key best = no_key;               // its first violation or error
};

class DistributedSearch {
 public:
  DistributedSearch(const SearchRun& run, unsigned threads);
  Searched run();

 private:
  struct Item {
    StateRef at;
    std::uint32_t id;
  };
  struct Entry {  // a new state of the next level: the smallest key that reached it
    std::uint64_t fp;
    Key key;
    StateRef at;
  };
  // The ids this rank numbered in a level, from `first`, with their links.
  struct LinkPart {
    std::uint32_t level_first = 0;   // the level's first id
    std::vector<std::uint32_t> starts;  // per rank, its first id in the level; then the level's end
    std::vector<std::uint32_t> parent;
    std::vector<std::uint16_t> action;
  };

  [[nodiscard]] int owner_of(std::uint64_t fp) const {
    return static_cast<int>(((fp & 0xffffffffull) * static_cast<std::uint64_t>(ranks_)) >> 32);
  }
  void expand_level();
  void expand_batch(std::size_t& pos, Key best_known);
  void expand_part(Lane& lane, Key best_known);
  [[nodiscard]] const Worker* holder() const;
  void take_in(Frames& into);
  void take_violation();
  void number_next();
  void finish();
  void merge_warnings(Result& r);
  void build_links();

  const SearchRun& run_;
  const Successors& next_of_;
  Limits limits_;
  int me_ = 0, ranks_ = 1;
  Searched result_;
  FingerprintSet visited_;
  Frames frames_[2];
  int gen_ = 0;
  std::vector<Item> level_;
  std::vector<Entry> next_;
  LevelIndex index_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::unique_ptr<Team> team_;
  std::vector<std::string> out_;
  std::string send_;
  Received in_;
  // Per state expanded in this level: its id and this rank's transitions
  // from the level's start to after it.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> after_;
  std::uint64_t level_done_ = 0;  // this rank's transitions in the level so far
  std::size_t bytes_per_state_ = 0;  // of successors, in the last round
  std::uint64_t depth_ = 0;
  std::uint64_t level_states_ = 1;  // the level read, over all ranks
  std::uint32_t base_ = 0;          // the first id of the level read
  std::uint64_t level_end_ = 1;     // the states stored before the level written
  std::uint64_t known_states_ = 1;  // over all ranks, at the last round
  std::uint64_t transitions_before_ = 0;  // over all ranks, before the level read
  Key local_best_ = no_key;         // this rank's first violation or error
  Key best_ = no_key;               // the first over all ranks
  std::uint64_t stop_ = none, local_stop_ = none;
  Found found_;
  std::vector<LinkPart> links_;
};

DistributedSearch::DistributedSearch(const SearchRun& run, unsigned threads) : run_(run), next_of_(run.next), limits_(run.opt) {
  MPI_Comm_rank(MPI_COMM_WORLD, &me_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  out_.resize(static_cast<std::size_t>(ranks_));
  State init = next_of_.initial(run.coverage);
  const std::uint64_t fp = next_of_.fingerprint(init);
  if (owner_of(fp) == me_) {
    visited_.insert(fp);
    std::string bytes;
    serialize(init, next_of_.owners(), bytes);
    level_.push_back(Item{frames_[gen_].put(bytes), 0});
  }
  frames_[gen_].seal();
  for (unsigned i = 0; i < threads; ++i) {
    auto lane = std::make_unique<Lane>();
    lane->w.s = init;
    lane->w.t = init;
    if (run.coverage) {
      lane->w.own_coverage = std::make_unique<Coverage>(next_of_.model().program());
      lane->w.coverage = lane->w.own_coverage.get();
    }
    lane->out.resize(static_cast<std::size_t>(ranks_));
    lanes_.push_back(std::move(lane));
  }
  if (threads > 1) team_ = std::make_unique<Team>(threads);
  index_.clear();
}

// One thread's part of the batch, in id order; it stops at its first
// violation or error, and past the first known.
void DistributedSearch::expand_part(Lane& lane, Key best_known) {
  Worker& w = lane.w;
  lane.expanded.clear();
  lane.bytes = 0;
  for (std::size_t k = lane.begin; k < lane.end; ++k) {
    const Item it = level_[k];
    if (key_of(it.id, 0) > std::min(best_known, lane.best)) break;
    w.load(lane.reader.get(frames_[gen_], it.at));
    const std::uint64_t before = w.transitions;
    try {
      next_of_.expand(
          w, it.id, depth_,
          [&](std::uint64_t fp, Action a, auto&& queued) {
            const int to = owner_of(fp);
            if (to == me_ && visited_.contains(fp)) return;
            const std::string_view b = queued();
            std::string& o = lane.out[static_cast<std::size_t>(to)];
            put(o, fp);
            put(o, key_of(it.id, a));
            put(o, static_cast<std::uint32_t>(b.size()));
            o.append(b);
            lane.bytes += b.size() + 20;
          },
          [&](std::uint64_t fp) {
            if (owner_of(fp) == me_) visited_.prefetch(fp);
          });
    } catch (...) {
      w.error = std::current_exception();
      w.error_key = key_of(it.id, w.action);
      lane.best = std::min(lane.best, w.error_key);
      break;
    }
    lane.expanded.emplace_back(it.id, w.transitions - before);
    if (w.found.any) {
      lane.best = std::min(lane.best, w.found_key);
      break;
    }
  }
}

// Expands this rank's next states of the level, a batch split among its
// threads in contiguous parts, each expanded whole unless a finding stops
// it (a part after a finding has larger keys: its successors and
// transitions are not counted before the finding). A batch is at most
// batch_states a thread, fewer where the last states sent more than
// batch_bytes a thread.
void DistributedSearch::expand_batch(std::size_t& pos, Key best_known) {
  if (local_best_ != no_key || local_stop_ != none) {
    pos = level_.size();
    return;
  }
  const std::size_t parts = lanes_.size();
  const std::size_t each = std::clamp<std::size_t>(batch_bytes / std::max<std::size_t>(bytes_per_state_, 1), 1, batch_states);
  const std::size_t n = std::min(each * parts, level_.size() - pos);
  for (std::size_t t = 0; t < parts; ++t) {
    lanes_[t]->begin = pos + n * t / parts;
    lanes_[t]->end = pos + n * (t + 1) / parts;
  }
  if (team_ && n >= parts) team_->run([&](int t) { expand_part(*lanes_[static_cast<std::size_t>(t)], best_known); });
  else
    for (const auto& lane : lanes_) expand_part(*lane, best_known);
  // In id order: the states expanded and their transitions, what they sent.
  std::size_t bytes = 0, done = 0;
  for (const auto& lane : lanes_) {
    for (const auto& [id, t] : lane->expanded) after_.emplace_back(id, level_done_ += t);
    for (std::size_t r = 0; r < out_.size(); ++r) {
      out_[r] += lane->out[r];
      lane->out[r].clear();
    }
    local_best_ = std::min(local_best_, lane->best);
    bytes += lane->bytes;
    done += lane->expanded.size();
  }
  if (done > 0) bytes_per_state_ = bytes / done;
  pos = local_best_ != no_key ? level_.size() : pos + n;
  std::uint64_t mem = 0;
  local_stop_ = std::max<std::uint64_t>(local_stop_, stop_of(limits_.reached(known_states_ + next_.size(), mem)));
}

// The successors received: each new one kept with the smallest key that
// reached it (its bytes are that parent's successor, as one thread stores).
void DistributedSearch::take_in(Frames& into) {
  for (int r = 0; r < ranks_; ++r) {
    Reader in = in_.from(r);
    while (in.more()) {
      const auto fp = in.get<std::uint64_t>();
      const auto key = in.get<Key>();
      const auto len = in.get<std::uint32_t>();
      const std::string_view b = in.bytes(len);
      if (visited_.contains(fp)) continue;
      const auto fresh = static_cast<std::uint32_t>(next_.size());
      const std::uint32_t i = index_.find_or_put(fp, fresh);
      if (i == fresh) next_.push_back(Entry{fp, key, into.put(b)});
      else if (key < next_[i].key) next_[i] = Entry{fp, key, into.put(b)};
    }
  }
}

// One level, in rounds, until no rank has a state left to expand (or a
// limit stops the search); then best_ is the first violation or error.
void DistributedSearch::expand_level() {
  Frames& into = frames_[gen_ ^ 1];
  into.raw_budget(visited_.bytes() / raw_share);
  next_.clear();
  index_.clear();
  after_.clear();
  std::size_t pos = 0;
  Key best_known = no_key;
  for (;;) {
    expand_batch(pos, best_known);
    exchange(out_, send_, in_);
    take_in(into);
    std::uint64_t mem = 0;
    local_stop_ = std::max<std::uint64_t>(local_stop_, stop_of(limits_.reached(known_states_ + next_.size(), mem)));
    // Maxima: a state left, the first key (complemented), the stop.
    std::uint64_t mx[3] = {pos < level_.size() ? 1u : 0u, ~local_best_, local_stop_}, gmx[3];
    MPI_Allreduce(mx, gmx, 3, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    // Sums: the states stored (with those of the level written), memory.
    std::uint64_t sm[3] = {next_.size(), mem, visited_.size()}, gsm[3];
    MPI_Allreduce(sm, gsm, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    best_known = ~gmx[1];
    stop_ = gmx[2];
    known_states_ = gsm[2] + gsm[0];
    limits_.progress(known_states_, depth_, gsm[0], gsm[1]);
    if (gmx[0] == 0 || stop_ != none) break;
  }
  best_ = best_known;
  into.seal();
}

// The first violation or error over the ranks: its holder tells the others;
// an error is thrown on every rank, a violation taken with the counts one
// thread has when it meets it.
const Worker* DistributedSearch::holder() const {
  for (const auto& lane : lanes_)
    if (lane->w.found_key == best_ || lane->w.error_key == best_) return &lane->w;
  return nullptr;
}

void DistributedSearch::take_violation() {
  const Worker* at = holder();
  int mine = at ? me_ : -1, h = -1;
  MPI_Allreduce(&mine, &h, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  std::string msg;
  if (h == me_) {
    const Worker& w = *at;
    if (w.found_key == best_) {
      put(msg, std::uint8_t{0});
      put(msg, static_cast<std::uint32_t>(w.found.violation));
      put(msg, w.found.parent);
      put(msg, static_cast<std::uint8_t>(w.found.deadlock));
      put(msg, w.found.action);
    } else {
      std::uint8_t kind = 3;
      std::string what;
      ir::Loc loc;
      try {
        std::rethrow_exception(w.error);
      } catch (const KernelError& e) {
        kind = 1, what = e.what(), loc = e.loc;
      } catch (const NotProved& e) {
        kind = 2, what = e.what();
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
        what = "an unknown exception";
      }
      put(msg, kind);
      put(msg, loc.line);
      put(msg, loc.col);
      msg += what;
    }
  }
  auto len = static_cast<std::uint32_t>(msg.size());
  MPI_Bcast(&len, 1, MPI_UINT32_T, h, MPI_COMM_WORLD);
  msg.resize(len);
  MPI_Bcast(msg.data(), static_cast<int>(len), MPI_BYTE, h, MPI_COMM_WORLD);
  Reader in{msg.data(), msg.data() + msg.size()};
  const auto kind = in.get<std::uint8_t>();
  if (kind != 0) {
    ir::Loc loc;
    loc.line = in.get<int>();
    loc.col = in.get<int>();
    const std::string what(in.p, in.end);
    if (kind == 1) throw KernelError(what, loc);
    if (kind == 2) throw NotProved(what);
    throw InternalError(what);
  }
  found_.any = true;
  found_.violation = static_cast<spec::Violation>(in.get<std::uint32_t>());
  found_.parent = in.get<std::uint32_t>();
  found_.deadlock = in.get<std::uint8_t>() != 0;
  found_.action = in.get<Action>();
  if (stop_ != none) return;
  // The states kept before it, and the transitions of the states expanded
  // up to it (the holder's last one included).
  std::uint64_t counts[2] = {0, 0}, all[2];
  for (const Entry& e : next_) counts[0] += e.key < best_;
  for (const auto& [id, t] : after_)
    if (id <= found_.parent) counts[1] = t;
  MPI_Allreduce(counts, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  result_.r.states = level_end_ + all[0];
  result_.r.transitions = transitions_before_ + all[1];
}

// The new states numbered in key order over the ranks, put into the
// visited set, and made the level read.
void DistributedSearch::number_next() {
  std::sort(next_.begin(), next_.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  // Each key to the rank that holds its parent's part of the level's ids.
  const std::uint64_t n = level_states_;
  auto part_of = [&](Key k) {
    return static_cast<std::size_t>(((k >> 16) - base_) * static_cast<std::uint64_t>(ranks_) / n);
  };
  for (const Entry& e : next_) put(out_[part_of(e.key)], e.key);
  exchange(out_, send_, in_);
  struct Held {
    Key key;
    int from;
    std::uint32_t index;  // among the keys `from` sent here
  };
  std::vector<Held> held;
  for (int r = 0; r < ranks_; ++r) {
    Reader in = in_.from(r);
    for (std::uint32_t i = 0; in.more(); ++i) held.push_back(Held{in.get<Key>(), r, i});
  }
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) { return a.key < b.key; });
  std::uint64_t count = held.size(), first = 0, total = 0;
  MPI_Exscan(&count, &first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (me_ == 0) first = 0;  // MPI_Exscan leaves rank 0's undefined
  MPI_Allreduce(&count, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (level_end_ + total >= std::numeric_limits<std::uint32_t>::max())
    throw KernelError("more than 2^32 states: the search cannot number them", {});
  // The ids, back to the keys' owners, in the order each sent its keys.
  std::vector<std::vector<std::uint32_t>> ids(static_cast<std::size_t>(ranks_));
  for (const Held& h : held) {
    auto& v = ids[static_cast<std::size_t>(h.from)];
    if (v.size() <= h.index) v.resize(h.index + 1);
  }
  for (std::size_t j = 0; j < held.size(); ++j)
    ids[static_cast<std::size_t>(held[j].from)][held[j].index] = static_cast<std::uint32_t>(level_end_ + first + j);
  if (run_.links) {
    LinkPart part;
    part.level_first = static_cast<std::uint32_t>(level_end_);
    std::vector<std::uint64_t> firsts(static_cast<std::size_t>(ranks_));
    MPI_Allgather(&first, 1, MPI_UINT64_T, firsts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    for (const std::uint64_t f : firsts) part.starts.push_back(static_cast<std::uint32_t>(level_end_ + f));
    part.starts.push_back(static_cast<std::uint32_t>(level_end_ + total));
    for (const Held& h : held) {
      part.parent.push_back(static_cast<std::uint32_t>(h.key >> 16));
      part.action.push_back(static_cast<std::uint16_t>(h.key & 0xffff));
    }
    links_.push_back(std::move(part));
  }
  for (int r = 0; r < ranks_; ++r)
    for (const std::uint32_t id : ids[static_cast<std::size_t>(r)]) put(out_[static_cast<std::size_t>(r)], id);
  exchange(out_, send_, in_);
  // Each rank's keys went to the parts in key order, so its ids rise along next_.
  std::vector<Reader> from;
  for (int r = 0; r < ranks_; ++r) from.push_back(in_.from(r));
  level_.clear();
  for (const Entry& e : next_) {
    const std::uint32_t id = from[part_of(e.key)].get<std::uint32_t>();
    level_.push_back(Item{e.at, id});
    visited_.insert(e.fp);
  }
  frames_[gen_].clear();
  gen_ ^= 1;
  base_ = static_cast<std::uint32_t>(level_end_);
  level_states_ = total;
  level_end_ += total;
  transitions_before_ += sum(level_done_);
}

// The warnings of every rank, in one list on each, as first_warnings takes them.
void DistributedSearch::merge_warnings(Result& r) {
  std::string mine;
  for (const auto& lane : lanes_)
    for (const auto& [k, x] : lane->w.warnings) {
      put(mine, k);
      put(mine, static_cast<std::uint32_t>(x.kind));
      put(mine, x.loc.line);
      put(mine, x.loc.col);
      put(mine, x.agent);
      put(mine, static_cast<std::uint32_t>(x.message.size()));
      mine += x.message;
    }
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(ranks_)), at(static_cast<std::size_t>(ranks_));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) at[i] = total, total += lens[i];
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_BYTE, all.data(), lens.data(), at.data(), MPI_BYTE, MPI_COMM_WORLD);
  Worker merged;
  Reader in{all.data(), all.data() + all.size()};
  while (in.more()) {
    const auto k = in.get<Key>();
    Warning x;
    x.kind = static_cast<spec::Violation>(in.get<std::uint32_t>());
    x.loc.line = in.get<int>();
    x.loc.col = in.get<int>();
    x.agent = in.get<int>();
    x.message = std::string(in.bytes(in.get<std::uint32_t>()));
    merged.warnings.emplace_back(k, std::move(x));
  }
  Warnings warnings = first_warnings({&merged}, found_.any ? best_ : no_key);
  r.warnings = std::move(warnings.list);
  r.warnings_capped = warnings.capped;
}

// The violation's schedule, its links asked of the ranks that numbered
// them, written into run.links as a chain of its own (ids 0 to its depth).
void DistributedSearch::build_links() {
  std::vector<std::pair<std::uint32_t, std::uint16_t>> path;  // from the violation's state back
  for (std::uint32_t id = found_.parent; id != 0;) {
    auto lv = std::upper_bound(links_.begin(), links_.end(), id, [](std::uint32_t v, const LinkPart& p) { return v < p.level_first; });
    const LinkPart& part = *(lv - 1);
    const int r = static_cast<int>(std::upper_bound(part.starts.begin(), part.starts.end() - 1, id) - part.starts.begin()) - 1;
    std::uint32_t link[2] = {0, 0};
    if (r == me_) {
      const std::size_t i = id - part.starts[static_cast<std::size_t>(r)];
      link[0] = part.parent[i];
      link[1] = part.action[i];
    }
    MPI_Bcast(link, 2, MPI_UINT32_T, r, MPI_COMM_WORLD);
    path.emplace_back(id, static_cast<std::uint16_t>(link[1]));
    id = link[0];
  }
  std::reverse(path.begin(), path.end());
  run_.links->add(0, 0);
  for (std::uint32_t i = 0; i < path.size(); ++i) run_.links->add(i, path[i].second);
  found_.parent = static_cast<std::uint32_t>(path.size());
}

void DistributedSearch::finish() {
  Result& r = result_.r;
  if (!found_.any || stop_ != none) {
    r.states = sum(visited_.size() + next_.size());
    std::uint64_t t = 0;
    for (const auto& lane : lanes_) t += lane->w.transitions;
    r.transitions = sum(t);
  }
  r.max_depth = depth_;
  r.memory_bytes = sum(peak_resident_bytes());
  std::uint64_t hits = 0, kept = 0;
  for (const auto& lane : lanes_) {
    hits += lane->w.cache.hits();
    kept += lane->w.kept_states;
    if (run_.coverage) run_.coverage->merge(*lane->w.own_coverage);
  }
  r.step_cache_hits = sum(hits);
  r.step_cache_states = sum(kept);
  if (run_.coverage) {
    std::vector<std::uint8_t>& marks = run_.coverage->marks();
    MPI_Allreduce(MPI_IN_PLACE, marks.data(), static_cast<int>(marks.size()), MPI_UINT8_T, MPI_BOR, MPI_COMM_WORLD);
  }
  merge_warnings(r);
  if (found_.any && run_.links) build_links();
  result_.found = found_;
  result_.stop_reason = stop_name(stop_);
  // An interrupt on any rank ends the run on every rank (check-kernel
  // checks no file after it).
  if (stop_ == interrupted) interrupt_requested.store(true);
}

Searched DistributedSearch::run() {
  while (level_states_ > 0 && depth_ <= run_.max_depth) {
    level_done_ = 0;
    expand_level();
    if (best_ != no_key) {
      take_violation();
      ++depth_;
      break;
    }
    if (stop_ != none) {
      ++depth_;
      break;
    }
    number_next();
    ++depth_;
  }
  finish();
  return std::move(result_);
}

Searched search(const SearchRun& run, unsigned threads) { return DistributedSearch(run, threads).run(); }

}  // namespace

}  // namespace pc::check
