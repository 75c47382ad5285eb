/* The barrier family in Promela, the peer model for the checker benchmark:
   W workers meet at one mbarrier-like counter (expected W) for P phases; each
   arrives, then waits until the phase of parity k%2 has completed.
   Build: spin -DW=4 -DP=200 -a barrier.pml && cc -O2 -DSAFETY -o pan pan.c */
#ifndef W
#define W 4
#endif
#ifndef P
#define P 4
#endif

byte pending = W;
short phase = 0;

proctype worker() {
  short k = 0;
  do
  :: k < P ->
     atomic {
       pending--;
       if
       :: pending == 0 -> phase++; pending = W
       :: else -> skip
       fi
     };
     ((phase % 2) != (k % 2));
     k++
  :: else -> break
  od
}

init {
  atomic {
    byte i = 0;
    do
    :: i < W -> run worker(); i++
    :: else -> break
    od
  }
}
