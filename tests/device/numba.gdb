set pagination off
set confirm off
set width 0
set print frame-arguments none
set breakpoint pending on
set cuda break_on_launch none
break numba_main.py:29
run
cuda thread (3,0,0)
frame
info args
info locals
print acc
print p
print k
print i
print n
cuda thread (0,0,0)
print acc
delete
set cuda break_on_launch application
continue
info line numba_main.py:39
break numba_main.py:39
set cuda break_on_launch none
continue
cuda block (1,0,0) thread (5,0,0)
frame
info args
info locals
print b
print i
print nbins
delete
continue
