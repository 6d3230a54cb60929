set pagination off
set confirm off
set width 0
set print frame-arguments none
set breakpoint pending on
set cuda break_on_launch none
break numba_main.py:27
break numba_main.py:29
break numba_main.py:36
break numba_main.py:39
run
cuda thread (3,0,0)
frame
info args
info locals
print k
print acc
print p
delete 1
continue
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
delete 2
info breakpoints
continue
cuda block (1,0,0) thread (5,0,0)
frame
info args
info locals
print b
print i
print nbins
info breakpoints
continue
frame
info locals
delete
continue
