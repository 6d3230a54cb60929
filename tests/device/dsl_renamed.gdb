set pagination off
set confirm off
set breakpoint pending on
set cuda break_on_launch none
break dsl.ptx:33
run
cuda thread (7,0,0)
frame
next
frame
print '%_a'
print '%rd4'
info locals
delete
continue
