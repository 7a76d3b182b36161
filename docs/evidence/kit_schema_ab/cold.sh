# run from the repository root: OLD=<checkout of the commit before> bash docs/evidence/kit_schema_ab/cold.sh
REPO=${REPO:-$(pwd)}; OLD=${OLD:-/tmp/old_tree}
for order in "old new" "new old"; do
 for tree in $order; do
  root=$OLD; [ $tree = new ] && root=$REPO
  rm -rf /tmp/ab/cold_$tree; mkdir -p /tmp/ab/cold_$tree
  for spec in "monkey_fun 2" "funky_monkey 4" "four_monkeys 4" "monki 2"; do
    r=$(cd /tmp && PYTHONPATH=$root NUMBA_CACHE_DIR=/tmp/ab/cold_$tree python $REPO/docs/evidence/kit_schema_ab/bench_one.py $spec 256 0.5 2>/dev/null)
    echo "cold $tree $spec $r"
  done
 done
done
