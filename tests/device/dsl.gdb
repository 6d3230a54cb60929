set pagination off
set confirm off
set breakpoint pending on
set cuda break_on_launch none
break dsl.ptx:28
run
frame
info args
next
frame
next
frame
print '%r1'
print n
print '%lidx0'
info address %lidx0
print/x '%rd2'
cuda thread (7,0,0)
frame
print '%lidx0'
info locals
break dsl.ptx:37
continue
cuda thread (7,0,0)
frame
info locals
print '%acc'
next
frame
print '%f1'
print '%acc'
info scope dsl.ptx:37
delete
continue
