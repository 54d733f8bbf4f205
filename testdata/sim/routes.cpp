// routes prints the links SimGrid routes each host pair of a platform over:
// one line per ordered pair, "src dst link link ...".
#include <simgrid/s4u.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
  simgrid::s4u::Engine e(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s platform.xml\n", argv[0]);
    return 2;
  }
  e.load_platform(argv[1]);
  e.seal_platform(); // Floyd and Dijkstra zones find their routes on sealing
  std::vector<simgrid::s4u::Host*> hosts = e.get_all_hosts();
  for (auto* a : hosts)
    for (auto* b : hosts) {
      if (a == b)
        continue;
      std::vector<simgrid::s4u::Link*> links;
      double lat = 0;
      a->route_to(b, links, &lat);
      std::printf("%s %s", a->get_cname(), b->get_cname());
      for (auto* l : links)
        std::printf(" %s", l->get_cname());
      std::printf("\n");
    }
  return 0;
}
