# Sourced by run.sh and jmh.sh: sets BENCH_JAVA to the java that runs the benchmarks. The
# module targets Java 17; a JDK >= 21 is preferred so that the LangChain4j peer can use
# virtual threads in the concurrency scenario (on 17 it falls back to platform threads).
java_feature() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1; }
if [[ -z "${BENCH_JAVA:-}" ]]; then
  best=java; best_v=$(java_feature java || echo 0)
  for j in ${JAVA_HOME:+$JAVA_HOME/bin/java} /usr/lib/jvm/*/bin/java; do
    [[ -x "$j" ]] || continue
    v=$(java_feature "$j" || echo 0)
    if [[ "$v" =~ ^[0-9]+$ && "$v" -gt "$best_v" ]]; then best=$j; best_v=$v; fi
  done
  BENCH_JAVA=$best
fi
export BENCH_JAVA
