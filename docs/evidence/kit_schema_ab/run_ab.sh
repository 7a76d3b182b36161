# run from the repository root: OLD=<checkout of the commit before> bash docs/evidence/kit_schema_ab/run_ab.sh
REPO=${REPO:-$(pwd)}; OLD=${OLD:-/tmp/old_tree}
# alternate old/new trees; fresh numba caches once per tree (cold first), then warm rounds
for tree in old new; do rm -rf /tmp/ab/cache_$tree; mkdir -p /tmp/ab/cache_$tree; done
for round in 1 2 3; do
 for tree in old new; do
  root=$OLD; [ $tree = new ] && root=$REPO
  for spec in "monkey_fun 2" "funky_monkey 4" "four_monkeys 4" "monki 2"; do
   for B in 1 1024; do
    r=$(cd /tmp && PYTHONPATH=$root NUMBA_CACHE_DIR=/tmp/ab/cache_$tree python $REPO/docs/evidence/kit_schema_ab/bench_one.py $spec $B 1.5)
    echo "$round $tree $spec $B $r"
   done
  done
 done
done
