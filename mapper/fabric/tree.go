package fabric

import "fmt"

// TreeLevel is one level of a tree network: Group[h] is host h's group
// at this level (the host itself at the node level, then its leaf
// switch's subtree, ...), and each group's links towards the level above
// carry Up bytes/s out of the group and Down into it (0: not declared),
// every parallel link added up.
type TreeLevel struct {
	Name     string
	Group    []int
	Up, Down []float64
	Latency  float64
}

// tree holds a tree's link ids for routing: up[k][g], down[k][g].
type tree struct {
	levels   []TreeLevel
	up, down [][]int32
}

// NewTree is a tree network: levels innermost first, the first one the
// nodes' own links (Group[h] == h). A message goes up from its source's
// groups until a level where source and target share a group, and down
// the target's: it crosses each level's group link of both ends below
// the level they share, the parallel uplinks of a group taken as one
// (their traffic spread evenly). Hosts that share no group at any level
// meet at the top (a core above the last level).
func NewTree(hosts []string, levels []TreeLevel, shared bool) (*Fabric, error) {
	t := &tree{levels: levels}
	ls := linkSet{shared: shared}
	for k, lv := range levels {
		if len(lv.Group) != len(hosts) {
			return nil, fmt.Errorf("tree level %s gives %d hosts' groups, the description names %d hosts", lv.Name, len(lv.Group), len(hosts))
		}
		ng := 0
		for _, g := range lv.Group {
			if g < 0 {
				return nil, fmt.Errorf("tree level %s: negative group", lv.Name)
			}
			ng = max(ng, g+1)
		}
		if len(lv.Up) < ng || len(lv.Down) < ng {
			return nil, fmt.Errorf("tree level %s has %d groups and %d bandwidths", lv.Name, ng, min(len(lv.Up), len(lv.Down)))
		}
		up, down := make([]int32, ng), make([]int32, ng)
		class := "node"
		if k > 0 {
			class = fmt.Sprintf("up-%d", k)
		}
		for g := 0; g < ng; g++ {
			name := fmt.Sprintf("%s_%d", lv.Name, g)
			if k == 0 {
				name = "node_" + hosts[g]
			}
			if shared {
				up[g] = ls.add(name, class, lv.Up[g], lv.Latency)
				down[g] = up[g]
				continue
			}
			up[g] = ls.add(name+"_UP", class, lv.Up[g], lv.Latency)
			down[g] = ls.add(name+"_DOWN", class, lv.Down[g], lv.Latency)
		}
		t.up, t.down = append(t.up, up), append(t.down, down)
	}
	f := &Fabric{Kind: KindTree, Routing: RuleUpDown, Hosts: hosts, Links: ls.links, Shape: fmt.Sprintf("tree of %d levels above the nodes", len(levels)-1)}
	for k, lv := range levels[1:] {
		f.Levels = append(f.Levels, GroupLevel{Name: lv.Name, Class: fmt.Sprintf("up-%d", k+1), Group: lv.Group})
	}
	f.route = t.route
	return f, nil
}

func (t *tree) route(a, b int, visit func(int32)) {
	top := len(t.levels)
	for k := 1; k < len(t.levels); k++ {
		if t.levels[k].Group[a] == t.levels[k].Group[b] {
			top = k
			break
		}
	}
	for k := 0; k < top; k++ {
		visit(t.up[k][t.levels[k].Group[a]])
	}
	for k := top - 1; k >= 0; k-- {
		visit(t.down[k][t.levels[k].Group[b]])
	}
}
